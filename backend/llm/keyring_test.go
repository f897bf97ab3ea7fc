package llm

import (
	"errors"
	"strings"
	"testing"

	"github.com/zalando/go-keyring"
)

// verifies API keys go to the keyring and come back from it, the environment variable
// is the fallback, and a machine without a keyring service gets a clear error naming it.
func TestAPIKeys(t *testing.T) {
	keyring.MockInit()
	t.Setenv("OPENAI_API_KEY", "")
	if _, _, err := APIKey("openai"); !errors.Is(err, ErrNoAPIKey) || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
		t.Fatalf("no key: %v", err)
	}
	if err := SetAPIKey("openai", "  sk-123 \n"); err != nil {
		t.Fatal(err)
	}
	if k, src, err := APIKey("openai"); k != "sk-123" || src != KeySourceKeyring || err != nil {
		t.Fatalf("stored key: %q %q %v", k, src, err)
	}
	if err := DeleteAPIKey("openai"); err != nil {
		t.Fatal(err)
	}
	if err := DeleteAPIKey("openai"); err != nil {
		t.Fatalf("deleting a missing key: %v", err)
	}
	t.Setenv("OPENAI_API_KEY", "sk-env")
	if k, src, _ := APIKey("openai"); k != "sk-env" || src != KeySourceEnv {
		t.Fatalf("env key: %q %q", k, src)
	}
	if err := SetAPIKey("gemini", "x"); err == nil {
		t.Fatal("unknown provider accepted")
	}

	keyring.MockInitWithError(errors.New("The name org.freedesktop.secrets was not provided by any .service files"))
	err := SetAPIKey("anthropic", "sk-ant-secret")
	if !errors.Is(err, ErrNoKeyring) || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") || strings.Contains(err.Error(), "sk-ant-secret") {
		t.Fatalf("no keyring service: %v", err)
	}
	t.Setenv("ANTHROPIC_API_KEY", "")
	if _, _, err := APIKey("anthropic"); !errors.Is(err, ErrNoAPIKey) || !errors.Is(err, ErrNoKeyring) {
		t.Fatalf("no keyring and no env: %v", err)
	}
}
