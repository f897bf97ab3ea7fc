package library

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/carrel-app/carrel/backend/provider"
)

// AnswerMetric is what one answer cost and how long it took.
type AnswerMetric struct {
	At               time.Time
	Mode             AnswerMode
	Provider         provider.Name
	Model            string
	Cached           bool // served from the answer cache
	Status           MessageStatus
	RetrievalMS      float64
	TTFTMS           float64 // to the first token (or to the whole answer without a model)
	TotalMS          float64
	PromptTokens     int
	CompletionTokens int
	CostUSD          float64
	SavedUSD         float64 // the cost of the answer a cache hit reused
}

// AddMetric records one answer's metrics.
func (l *Library) AddMetric(ctx context.Context, m AnswerMetric) error {
	if m.At.IsZero() {
		m.At = time.Now()
	}
	_, err := l.db.ExecContext(ctx, `INSERT INTO answer_metrics (at, day, mode, provider, model, cached, status,
		retrieval_ms, ttft_ms, total_ms, prompt_tokens, completion_tokens, cost_usd, saved_usd)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		m.At.UnixMilli(), m.At.Local().Format(time.DateOnly), m.Mode, m.Provider, m.Model, m.Cached, m.Status,
		m.RetrievalMS, m.TTFTMS, m.TotalMS, m.PromptTokens, m.CompletionTokens, m.CostUSD, m.SavedUSD)
	if err != nil {
		return fmt.Errorf("record answer metrics: %w", err)
	}
	return nil
}

// Latency summarises a set of durations in milliseconds.
type Latency struct {
	N   int     `json:"n"`
	P50 float64 `json:"p50_ms"`
	P95 float64 `json:"p95_ms"`
	Max float64 `json:"max_ms"`
}

// StatsPeriod sums the answers of one day, or of all time.
type StatsPeriod struct {
	Day              string  `json:"day,omitempty"`
	Questions        int     `json:"questions"`
	CacheHits        int     `json:"cache_hits"`
	CacheMisses      int     `json:"cache_misses"`
	NotFound         int     `json:"not_found"`
	NoModel          int     `json:"no_model"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	CostUSD          float64 `json:"cost_usd"`
	SavedUSD         float64 `json:"saved_usd"`
	Retrieval        Latency `json:"retrieval"`
	TTFTCached       Latency `json:"ttft_cached"`
	TTFTUncached     Latency `json:"ttft_uncached"`
	TotalCached      Latency `json:"total_cached"`
	TotalUncached    Latency `json:"total_uncached"`
}

// Stats is every answer's metrics in total and per day (newest day first).
type Stats struct {
	Total StatsPeriod   `json:"total"`
	Days  []StatsPeriod `json:"days"`
}

type samples struct{ retrieval, ttftC, ttftU, totalC, totalU []float64 }

// Stats sums the recorded answer metrics.
func (l *Library) Stats(ctx context.Context) (Stats, error) {
	rows, err := l.db.QueryContext(ctx, `SELECT day, mode, cached, retrieval_ms, ttft_ms, total_ms,
		prompt_tokens, completion_tokens, cost_usd, saved_usd FROM answer_metrics ORDER BY day DESC, id`)
	if err != nil {
		return Stats{}, fmt.Errorf("read answer metrics: %w", err)
	}
	defer rows.Close()
	var st Stats
	var all samples
	var day *StatsPeriod
	var daySamples samples
	closeDay := func() {
		if day != nil {
			daySamples.finish(day)
			st.Days = append(st.Days, *day)
		}
	}
	for rows.Next() {
		var d, mode string
		var cached bool
		var r, ttft, total, cost, saved float64
		var pt, ct int
		if err := rows.Scan(&d, &mode, &cached, &r, &ttft, &total, &pt, &ct, &cost, &saved); err != nil {
			return Stats{}, fmt.Errorf("read answer metrics: %w", err)
		}
		if day == nil || day.Day != d {
			closeDay()
			day, daySamples = &StatsPeriod{Day: d}, samples{}
		}
		for _, p := range []*StatsPeriod{&st.Total, day} {
			p.Questions++
			if cached {
				p.CacheHits++
			} else {
				p.CacheMisses++
			}
			switch AnswerMode(mode) {
			case AnswerNotFound:
				p.NotFound++
			case AnswerPassages:
				p.NoModel++
			}
			p.PromptTokens += pt
			p.CompletionTokens += ct
			p.CostUSD += cost
			p.SavedUSD += saved
		}
		for _, s := range []*samples{&all, &daySamples} {
			s.add(cached, r, ttft, total)
		}
	}
	if err := rows.Err(); err != nil {
		return Stats{}, fmt.Errorf("read answer metrics: %w", err)
	}
	closeDay()
	all.finish(&st.Total)
	if st.Days == nil {
		st.Days = []StatsPeriod{}
	}
	return st, nil
}

func (s *samples) add(cached bool, retrieval, ttft, total float64) {
	if !cached {
		s.retrieval = append(s.retrieval, retrieval)
		s.ttftU = append(s.ttftU, ttft)
		s.totalU = append(s.totalU, total)
		return
	}
	s.ttftC = append(s.ttftC, ttft)
	s.totalC = append(s.totalC, total)
}

func (s *samples) finish(p *StatsPeriod) {
	p.Retrieval, p.TTFTCached, p.TTFTUncached = latency(s.retrieval), latency(s.ttftC), latency(s.ttftU)
	p.TotalCached, p.TotalUncached = latency(s.totalC), latency(s.totalU)
}

// latency gives nearest-rank percentiles.
func latency(v []float64) Latency {
	if len(v) == 0 {
		return Latency{}
	}
	v = slices.Clone(v)
	slices.Sort(v)
	at := func(q float64) float64 { return v[min(len(v)-1, int(q*float64(len(v))))] }
	return Latency{N: len(v), P50: at(0.5), P95: at(0.95), Max: v[len(v)-1]}
}
