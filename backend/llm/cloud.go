package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/carrel-app/carrel/backend/provider"
)

// Errors of cloud providers. Match them with [errors.Is]; the returned errors wrap them
// with the provider's own message.
var (
	// ErrNoAPIKey means no API key is stored for the provider.
	ErrNoAPIKey = errors.New("no API key")
	// ErrBadKey means the provider refused the API key (401, 403).
	ErrBadKey = errors.New("the API key was refused")
	// ErrRateLimited means the provider asks to slow down, or the account is out of
	// credit (429).
	ErrRateLimited = errors.New("rate limited")
	// ErrOverloaded means the provider is overloaded or failing (500, 502, 503, 529).
	ErrOverloaded = errors.New("the provider is overloaded")
)

// CloudOptions configure a cloud provider's client.
type CloudOptions struct {
	// APIKey authenticates; required.
	APIKey string
	// BaseURL overrides the API endpoint ("" for the provider's own).
	BaseURL string
	// HTTPClient sends the requests (nil: a default client).
	HTTPClient *http.Client
	// MaxRetries is how often a failed request (429, 5xx, connection error) is retried
	// with backoff; negative means the SDK's default (2).
	MaxRetries int
}

// apiError describes a provider's HTTP error for classification.
type apiError struct {
	provider, model string
	status          int
	kind, message   string
}

// classify wraps a provider's error in the package's sentinels, with its message.
func (e apiError) err(cause error) error {
	var sentinel error
	hint := ""
	switch {
	case e.status == http.StatusUnauthorized || e.status == http.StatusForbidden || e.kind == "authentication_error" || e.kind == "permission_error":
		sentinel, hint = ErrBadKey, "check the "+e.provider+" API key in Settings"
	case e.status == http.StatusTooManyRequests || e.kind == "rate_limit_error":
		sentinel, hint = ErrRateLimited, "wait a moment and ask again, or check the account's limits and credit"
	case e.status == 529 || e.status >= 500 || e.kind == "overloaded_error" || e.kind == "api_error" || e.kind == "server_error":
		sentinel, hint = ErrOverloaded, "try again shortly, or answer with the local model"
	case e.status == http.StatusNotFound:
		sentinel, hint = ErrModelNotFound, "choose another "+e.provider+" model"
	default:
		return fmt.Errorf("%s %s: %w", e.provider, e.model, cause)
	}
	msg := strings.TrimSpace(e.message)
	if msg == "" {
		msg = http.StatusText(e.status)
	}
	return fmt.Errorf("%s %s: %w (%s): %s", e.provider, e.model, sentinel, msg, hint)
}

// streamEnd turns the end of a stream into the Chat result: a cancelled context, a
// provider error, or a stream that stopped before its end (partial answer).
func streamEnd(ctx context.Context, provider provider.Name, model string, err error, finished bool, classify func(error) error) error {
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		if c := classify(err); c != nil {
			return c
		}
		return fmt.Errorf("%s %s: %w: %w", provider, model, ErrTruncated, err)
	case !finished:
		return fmt.Errorf("%s %s: %w", provider, model, ErrTruncated)
	}
	return nil
}
