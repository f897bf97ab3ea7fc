package llm

import (
	"errors"
	"fmt"
	"strings"

	"github.com/carrel-app/carrel/backend/envconfig"
	"github.com/carrel-app/carrel/backend/provider"
	"github.com/zalando/go-keyring"
)

// KeyringService is the service name Carrel's API keys are stored under in the OS
// keyring (macOS Keychain, Windows Credential Manager, the Secret Service on Linux).
const KeyringService = "Carrel"

// ErrNoKeyring means this machine has no keyring service to keep API keys in (on Linux:
// no Secret Service, such as GNOME Keyring or KeePassXC, on the D-Bus session bus).
var ErrNoKeyring = errors.New("no keyring service on this machine")

// KeyEnv names the environment variable that can hold provider's API key.
func KeyEnv(provider provider.Name) string { return envconfig.APIKeyVar(provider) }

// KeySource is where a provider's API key comes from.
type KeySource string

// Key sources, as [APIKey] reports them.
const (
	KeySourceKeyring KeySource = "keyring"
	KeySourceEnv     KeySource = "environment"
	KeySourceNone    KeySource = "" // no key
)

func checkProvider(provider provider.Name) error {
	if envconfig.APIKeyVar(provider) == "" {
		return fmt.Errorf("unknown provider %q: use openai or anthropic", provider)
	}
	return nil
}

// SetAPIKey stores a provider's API key in the OS keyring. Keys are never written to
// the library or to logs. Where there is no keyring service it returns an error wrapping
// [ErrNoKeyring] that names the environment variable to use instead.
func SetAPIKey(provider provider.Name, key string) error {
	if err := checkProvider(provider); err != nil {
		return err
	}
	key = strings.TrimSpace(key)
	if key == "" {
		return errors.New("the API key is empty")
	}
	if err := keyring.Set(KeyringService, string(provider), key); err != nil {
		return noKeyring(provider, err)
	}
	return nil
}

// DeleteAPIKey removes a provider's key from the keyring; a missing key is no error.
func DeleteAPIKey(provider provider.Name) error {
	if err := checkProvider(provider); err != nil {
		return err
	}
	if err := keyring.Delete(KeyringService, string(provider)); err != nil && !errors.Is(err, keyring.ErrNotFound) {
		return noKeyring(provider, err)
	}
	return nil
}

// APIKey returns a provider's API key and where it came from: the OS keyring first,
// then the provider's environment variable (OPENAI_API_KEY, ANTHROPIC_API_KEY). With
// neither it returns an error wrapping [ErrNoAPIKey] saying how to set one.
func APIKey(provider provider.Name) (key string, source KeySource, err error) {
	if err := checkProvider(provider); err != nil {
		return "", "", err
	}
	key, kerr := keyring.Get(KeyringService, string(provider))
	if kerr == nil && key != "" {
		return key, KeySourceKeyring, nil
	}
	if env := envconfig.APIKey(provider); env != "" {
		return env, KeySourceEnv, nil
	}
	if kerr != nil && !errors.Is(kerr, keyring.ErrNotFound) {
		return "", "", fmt.Errorf("%w for %s: %w", ErrNoAPIKey, provider, noKeyring(provider, kerr))
	}
	return "", "", fmt.Errorf("%w for %s: add it in Settings (or `carrel keys set %s`), or set %s", ErrNoAPIKey, provider, provider, envconfig.APIKeyVar(provider))
}

// noKeyring explains a keyring failure without repeating anything secret.
func noKeyring(provider provider.Name, cause error) error {
	return fmt.Errorf("%w (%v): set %s in Carrel's environment instead; Carrel never stores keys in its library or logs",
		ErrNoKeyring, cause, envconfig.APIKeyVar(provider))
}
