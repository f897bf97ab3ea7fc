package chat

import "time"

// CacheMatch is how a question matched a cached one.
type CacheMatch string

// Cache matches.
const (
	// MatchMeaning: embedding similarity and the same content words.
	MatchMeaning CacheMatch = "meaning"
	// MatchWords: no embedding model, the same content words only.
	MatchWords CacheMatch = "words"
)

// CachedFrom says where a reused answer was first given and how its question matched.
type CachedFrom struct {
	// SessionID, SessionTitle and MessageID name the exchange that answered it first
	// (the session may have been deleted since).
	SessionID    string `json:"session_id"`
	SessionTitle string `json:"session_title"`
	MessageID    int64  `json:"message_id"`
	// Question is the standalone question answered then.
	Question string    `json:"question"`
	At       time.Time `json:"at"`
	// Match says how the question matched; Similarity is the cosine (MatchMeaning).
	Match      CacheMatch `json:"match"`
	Similarity float64    `json:"similarity,omitempty"`
	// SavedUSD is what the answer cost when a model wrote it.
	SavedUSD float64 `json:"saved_usd"`
}
