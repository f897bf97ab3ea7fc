package envconfig

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// verifies that each setting reads its variable when called and means what All says.
func TestSettings(t *testing.T) {
	t.Run("unset", func(t *testing.T) {
		for _, v := range All() {
			t.Setenv(v.Name, "")
		}
		if Library() != "" || OCROff() || Tesseract() != "" || CacheDir() != "" || Reranker() != RerankLexical || OllamaHost() != "" || OllamaBin() != "" || EmbedThreads() != "" || OllamaTuneOff() || GCTunedByUser() {
			t.Error("a setting is on with every variable empty")
		}
	})
	t.Run("set", func(t *testing.T) {
		t.Setenv(LibraryVar, "/lib")
		t.Setenv(OCRVar, "OFF")
		t.Setenv(RerankVar, "lexical")
		t.Setenv(OpenAIKeyVar, "  sk-test \n")
		t.Setenv("GOMEMLIMIT", "1GiB")
		if Library() != "/lib" {
			t.Errorf("Library() = %q", Library())
		}
		if !OCROff() {
			t.Error("CARREL_OCR=OFF does not switch OCR off")
		}
		if Reranker() != RerankLexical {
			t.Errorf("Reranker() = %q", Reranker())
		}
		if got := APIKey("openai"); got != "sk-test" {
			t.Errorf("APIKey(openai) = %q, want the trimmed key", got)
		}
		if APIKey("nobody") != "" || APIKeyVar("nobody") != "" {
			t.Error("an unknown provider has a key variable")
		}
		if !GCTunedByUser() {
			t.Error("GOMEMLIMIT set, GCTunedByUser false")
		}
	})
	t.Run("all", func(t *testing.T) {
		t.Setenv(AnthropicKeyVar, "secret")
		seen := map[string]bool{}
		for _, v := range All() {
			if v.Name == "" || v.Usage == "" || v.Value == nil || seen[v.Name] {
				t.Errorf("bad or repeated entry %+v", v)
			}
			seen[v.Name] = true
			if strings.Contains(v.Value(), "secret") {
				t.Errorf("All shows the value of %s", v.Name)
			}
		}
		for _, name := range []string{LibraryVar, OCRVar, TesseractVar, CacheDirVar, RerankVar, OllamaBinVar, OllamaTuneVar, OllamaHostVar, OpenAIKeyVar, AnthropicKeyVar} {
			if !seen[name] {
				t.Errorf("All does not list %s", name)
			}
		}
	})
}

// verifies HoldKeys: the keys leave the environment (a child started afterwards does not
// inherit them) and APIKey still returns them, trimmed; All still says they are set.
func TestHoldKeys(t *testing.T) {
	t.Setenv(OpenAIKeyVar, " sk-held-openai\n")
	t.Setenv(AnthropicKeyVar, "sk-ant-held")
	t.Cleanup(func() { heldMu.Lock(); held = nil; heldMu.Unlock() })
	HoldKeys()
	for _, name := range []string{OpenAIKeyVar, AnthropicKeyVar} {
		if v, ok := os.LookupEnv(name); ok {
			t.Errorf("%s is still in the environment: %q", name, v)
		}
	}
	out, err := exec.Command("env").Output()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "sk-held") || strings.Contains(string(out), "sk-ant-held") {
		t.Fatalf("a child started after HoldKeys has a key in its environment:\n%s", out)
	}
	if APIKey("openai") != "sk-held-openai" || APIKey("anthropic") != "sk-ant-held" {
		t.Fatalf("held keys: %q %q", APIKey("openai"), APIKey("anthropic"))
	}
	for _, v := range All() {
		if (v.Name == OpenAIKeyVar || v.Name == AnthropicKeyVar) && v.Value() != "(set)" {
			t.Errorf("All shows %s as %q, want (set)", v.Name, v.Value())
		}
	}
}
