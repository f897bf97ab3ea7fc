package envconfig

import (
	"strings"
	"testing"
)

// verifies that each setting reads its variable when called and means what All says.
func TestSettings(t *testing.T) {
	t.Run("unset", func(t *testing.T) {
		for _, v := range All() {
			t.Setenv(v.Name, "")
		}
		if Library() != "" || OCROff() || Tesseract() != "" || CacheDir() != "" || Reranker() != "" || OllamaHost() != "" || OllamaBin() != "" || OllamaTuneOff() || GCTunedByUser() {
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
