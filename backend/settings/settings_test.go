package settings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/carrel-app/carrel/backend/provider"
)

func TestSaveConfigInNewFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	if err := Save(dir, Config{ChatModel: "x"}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, ConfigFile))
	if err != nil || string(b) != "{\n  \"chat_model\": \"x\"\n}\n" {
		t.Fatalf("file %q %v", b, err)
	}
}

// verifies Load: no file gives an empty Config for the folder, a saved one comes back
// field for field (the answering settings at the top level), and a broken file is an
// error naming it.
func TestLoad(t *testing.T) {
	dir := t.TempDir()
	if c, err := Load(dir); err != nil || c.Dir != dir || c.ChatModel != "" {
		t.Fatalf("no file: %+v %v", c, err)
	}
	want := Config{Dir: dir, ChatModel: "qwen2.5:1.5b", TopK: 9, AnswerConfig: AnswerConfig{Provider: provider.OpenAI, BudgetUSD: 2.5}}
	if err := Save(dir, want); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, ConfigFile))
	if !strings.Contains(string(b), `"provider": "openai"`) || strings.Contains(string(b), dir) {
		t.Fatalf("config.json: %s", b)
	}
	got, err := Load(dir)
	if err != nil || got.ChatModel != want.ChatModel || got.TopK != 9 || got.Provider != provider.OpenAI || got.BudgetUSD != 2.5 || got.Dir != dir {
		t.Fatalf("loaded %+v %v", got, err)
	}
	if d := got.WithDefaults(); d.EmbedModel != DefaultEmbedModel || d.MaxTokens != 1024 || d.TopK != 9 {
		t.Fatalf("defaults: %+v", d)
	}
	os.WriteFile(filepath.Join(dir, ConfigFile), []byte("{not json"), 0o644)
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), ConfigFile) {
		t.Fatalf("broken file: %v", err)
	}
}
