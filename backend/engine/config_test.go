package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestSetModelsSavesAndSwitches(t *testing.T) {
	dir := t.TempDir()
	// A setting the user wrote by hand survives a model switch.
	if err := os.WriteFile(filepath.Join(dir, ConfigFile), []byte(`{"top_k": 9}`), 0o644); err != nil {
		t.Fatal(err)
	}
	eng := openEngine(t, Config{Dir: dir})
	ctx := context.Background()
	if st := eng.Status(ctx); st.ChatModel != DefaultChatModel {
		t.Fatalf("chat model before: %q", st.ChatModel)
	}
	changed, err := eng.SetModels(ctx, " qwen2.5:1.5b ", "nomic-embed-text")
	if err != nil || !changed {
		t.Fatalf("SetModels: changed=%v err=%v", changed, err)
	}
	if c := eng.Config(); c.ChatModel != "qwen2.5:1.5b" || c.EmbedModel != "nomic-embed-text" {
		t.Fatalf("config after: %+v", c)
	}
	// The status is checked again, not served from the cache.
	if st := eng.Status(ctx); st.ChatModel != "qwen2.5:1.5b" || st.EmbedModel != "nomic-embed-text" {
		t.Fatalf("status after: %q %q", st.ChatModel, st.EmbedModel)
	}
	saved, err := LoadConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	if saved.ChatModel != "qwen2.5:1.5b" || saved.EmbedModel != "nomic-embed-text" || saved.TopK != 9 || saved.MaxTokens != 0 {
		t.Fatalf("saved: %+v", saved)
	}
	// "" leaves a model as it is.
	if changed, err := eng.SetModels(ctx, "llama3.2:3b", ""); err != nil || changed {
		t.Fatalf("chat only: changed=%v err=%v", changed, err)
	}
	if saved, _ := LoadConfig(dir); saved.ChatModel != "llama3.2:3b" || saved.EmbedModel != "nomic-embed-text" {
		t.Fatalf("saved after chat only: %+v", saved)
	}
}
