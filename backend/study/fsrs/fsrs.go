// Package fsrs is the Free Spaced Repetition Scheduler (FSRS-6, the published algorithm)
// as ts-fsrs 5.4.2, its reference implementation, computes it: default parameters, the
// short-term scheduler with learning steps (ts-fsrs's default), fuzz off so that a
// schedule is a function of its review history. fsrs_test.go runs ts-fsrs itself under
// node on the same histories and requires the same due dates, stabilities and
// difficulties. Every rounding is ts-fsrs's: values are rounded to 8 decimals where it
// rounds them and intervals with JavaScript's Math.round.
package fsrs

import (
	"fmt"
	"math"
	"time"
)

// State is where a card is in its learning.
type State int

// Card states (ts-fsrs's State).
const (
	New State = iota
	Learning
	Review
	Relearning
)

// Rating is the grade a review gives a card.
type Rating int

// Ratings (ts-fsrs's Rating, without Manual).
const (
	Again Rating = iota + 1
	Hard
	Good
	Easy
)

// Card is a card's memory state and schedule (ts-fsrs's Card).
type Card struct {
	Due           time.Time
	Stability     float64
	Difficulty    float64
	ElapsedDays   int
	ScheduledDays int
	LearningSteps int
	Reps          int
	Lapses        int
	State         State
	LastReview    time.Time // zero before the first review
}

// ReviewLog records one review (ts-fsrs's ReviewLog): the card as it was before it.
type ReviewLog struct {
	Rating          Rating
	State           State
	Due             time.Time
	Stability       float64
	Difficulty      float64
	ElapsedDays     int
	LastElapsedDays int
	ScheduledDays   int
	LearningSteps   int
	Review          time.Time
}

// Params are the scheduler's parameters (ts-fsrs's FSRSParameters, short-term on).
type Params struct {
	RequestRetention float64
	MaximumInterval  int
	W                [21]float64
	// LearningSteps and RelearningSteps are in minutes (ts-fsrs writes "1m", "10m").
	LearningSteps   []int
	RelearningSteps []int
}

// DefaultParams are ts-fsrs 5.4.2's defaults (FSRS-6 weights, retention 0.9, steps 1m
// 10m, relearning 10m); the weights are within clipParameters' bounds, so unclipped.
func DefaultParams() Params {
	return Params{
		RequestRetention: 0.9,
		MaximumInterval:  36500,
		W: [21]float64{0.212, 1.2931, 2.3065, 8.2956, 6.4133, 0.8334, 3.0194, 0.001, 1.8722, 0.1666, 0.796,
			1.4835, 0.0614, 0.2629, 1.6483, 0.6014, 1.8729, 0.5425, 0.0912, 0.0658, 0.1542},
		LearningSteps:   []int{1, 10},
		RelearningSteps: []int{10},
	}
}

const (
	sMin = 0.001
	sMax = 36500.0
)

// Scheduler computes the next state of a card after a review.
type Scheduler struct {
	p      Params
	decay  float64
	factor float64
	ivlMod float64
}

// NewScheduler returns a scheduler for p.
func NewScheduler(p Params) (*Scheduler, error) {
	if p.RequestRetention <= 0 || p.RequestRetention > 1 {
		return nil, fmt.Errorf("fsrs: requested retention %v is not in (0, 1]", p.RequestRetention)
	}
	s := &Scheduler{p: p}
	s.decay = -p.W[20]
	s.factor = roundTo(math.Exp(math.Log(0.9)/s.decay)-1, 8)
	s.ivlMod = roundTo((math.Pow(p.RequestRetention, 1/s.decay)-1)/s.factor, 8)
	return s, nil
}

// Default is a scheduler with [DefaultParams].
func Default() *Scheduler {
	s, _ := NewScheduler(DefaultParams())
	return s
}

// NewCard is an empty card due at now.
func NewCard(now time.Time) Card { return Card{Due: now, State: New} }

// jsRound is JavaScript's Math.round: halves round up, towards +∞ (math.Round rounds
// them away from zero, so -2.5 would differ).
func jsRound(x float64) float64 {
	f := math.Floor(x)
	if x-f >= 0.5 {
		return f + 1
	}
	return f
}

func roundTo(x float64, decimals int) float64 {
	f := math.Pow(10, float64(decimals))
	return jsRound(x*f) / f
}

func clamp(x, lo, hi float64) float64 { return math.Min(math.Max(x, lo), hi) }

// Retrievability is the probability of recall after t days at stability s.
func (s *Scheduler) forgettingCurve(t int, stab float64) float64 {
	return roundTo(math.Pow(1+s.factor*float64(t)/stab, s.decay), 8)
}

// Retrievability is the card's probability of recall at now (0 for a new card).
func (s *Scheduler) Retrievability(c Card, now time.Time) float64 {
	if c.State == New {
		return 0
	}
	t := 0
	if !c.LastReview.IsZero() {
		t = max(dayDiff(c.LastReview, now), 0)
	}
	return s.forgettingCurve(t, c.Stability)
}

func (s *Scheduler) initStability(g Rating) float64 { return math.Max(s.p.W[g-1], 0.1) }

func (s *Scheduler) initDifficulty(g Rating) float64 {
	w := s.p.W
	return roundTo(w[4]-math.Exp(float64(g-1)*w[5])+1, 8)
}

func (s *Scheduler) nextInterval(stab float64) int {
	ivl := math.Min(math.Max(1, jsRound(stab*s.ivlMod)), float64(s.p.MaximumInterval))
	return int(jsRound(ivl)) // fuzz off: ts-fsrs's apply_fuzz rounds and returns
}

func (s *Scheduler) nextDifficulty(d float64, g Rating) float64 {
	delta := -s.p.W[6] * float64(g-3)
	next := d + roundTo(delta*(10-d)/9, 8) // linear damping
	w7 := s.p.W[7]
	return clamp(roundTo(w7*s.initDifficulty(Easy)+(1-w7)*next, 8), 1, 10) // mean reversion
}

func (s *Scheduler) nextRecallStability(d, stab, r float64, g Rating) float64 {
	w := s.p.W
	hard, easy := 1.0, 1.0
	if g == Hard {
		hard = w[15]
	}
	if g == Easy {
		easy = w[16]
	}
	return roundTo(clamp(stab*(1+math.Exp(w[8])*(11-d)*math.Pow(stab, -w[9])*(math.Exp((1-r)*w[10])-1)*hard*easy), sMin, sMax), 8)
}

func (s *Scheduler) nextForgetStability(d, stab, r float64) float64 {
	w := s.p.W
	return roundTo(clamp(w[11]*math.Pow(d, -w[12])*(math.Pow(stab+1, w[13])-1)*math.Exp((1-r)*w[14]), sMin, sMax), 8)
}

func (s *Scheduler) nextShortTermStability(stab float64, g Rating) float64 {
	w := s.p.W
	sinc := math.Pow(stab, -w[19]) * math.Exp(w[17]*(float64(g)-3+w[18]))
	if g >= Hard {
		sinc = math.Max(sinc, 1)
	}
	return roundTo(clamp(stab*sinc, sMin, sMax), 8)
}

// nextState is ts-fsrs's next_state: the memory state after grade g, t days after the
// last review; r < 0 means compute it from the forgetting curve.
func (s *Scheduler) nextState(d, stab float64, t int, g Rating, r float64) (float64, float64) {
	if d == 0 && stab == 0 {
		return clamp(s.initDifficulty(g), 1, 10), s.initStability(g)
	}
	if r < 0 {
		r = s.forgettingCurve(t, stab)
	}
	var ns float64
	switch {
	case t == 0:
		ns = s.nextShortTermStability(stab, g)
	case g == Again:
		after := s.nextForgetStability(d, stab, r)
		w := s.p.W
		ns = clamp(roundTo(stab/math.Exp(w[17]*w[18]), 8), sMin, after)
	default:
		ns = s.nextRecallStability(d, stab, r, g)
	}
	return s.nextDifficulty(d, g), ns
}

// dayDiff is ts-fsrs's dateDiffInDays: whole UTC calendar days from a to b.
func dayDiff(a, b time.Time) int {
	da := time.Date(a.UTC().Year(), a.UTC().Month(), a.UTC().Day(), 0, 0, 0, 0, time.UTC)
	db := time.Date(b.UTC().Year(), b.UTC().Month(), b.UTC().Day(), 0, 0, 0, 0, time.UTC)
	return int(math.Floor(float64(db.Sub(da).Milliseconds()) / 864e5))
}

// stepInfo is ts-fsrs's BasicLearningStepsStrategy for one grade: minutes until the card
// is due again and its next step, or ok false when the grade leaves the steps.
func (s *Scheduler) stepInfo(state State, cur int, g Rating) (minutes, next int, ok bool) {
	steps := s.p.LearningSteps
	if state == Relearning || state == Review {
		steps = s.p.RelearningSteps
	}
	n := len(steps)
	if n == 0 || cur >= n {
		return 0, 0, false
	}
	if state == Review {
		if g == Again {
			return steps[max(0, cur)], 0, true
		}
		return 0, 0, false
	}
	switch g {
	case Again:
		return steps[0], 0, true
	case Hard:
		if n == 1 {
			return int(jsRound(float64(steps[0]) * 1.5)), cur, true
		}
		return int(jsRound(float64(steps[0]+steps[1]) / 2)), cur, true
	case Good:
		if cur+1 < n && steps[cur+1] != 0 {
			return steps[cur+1], cur + 1, true
		}
	}
	return 0, 0, false
}

// applySteps is ts-fsrs's applyLearningSteps: keep the card in toState for a step of
// under a day, or graduate it to review with an interval from its stability.
func (s *Scheduler) applySteps(cur Card, next *Card, g Rating, toState State, elapsed int, now time.Time) {
	minutes, step, ok := s.stepInfo(cur.State, cur.LearningSteps, g)
	if !ok {
		minutes, step = 0, 0
	}
	switch {
	case minutes > 0 && minutes < 1440:
		next.LearningSteps = step
		next.ScheduledDays = 0
		next.State = toState
		next.Due = now.Add(time.Duration(minutes) * time.Minute)
	case minutes >= 1440:
		next.State = Review
		next.LearningSteps = step
		next.Due = now.Add(time.Duration(minutes) * time.Minute)
		next.ScheduledDays = minutes / 1440
	default:
		next.State = Review
		next.LearningSteps = 0
		ivl := s.nextInterval(next.Stability)
		next.ScheduledDays = ivl
		next.Due = now.Add(time.Duration(ivl) * 24 * time.Hour)
	}
}

// Next returns the card after a review graded g at now, and the review's log.
func (s *Scheduler) Next(c Card, now time.Time, g Rating) (Card, ReviewLog, error) {
	if g < Again || g > Easy {
		return c, ReviewLog{}, fmt.Errorf("fsrs: grade %d is not 1 (again) to 4 (easy)", g)
	}
	now = time.UnixMilli(now.UnixMilli()).UTC() // ts-fsrs's dates are milliseconds
	elapsed := 0
	if c.State != New && !c.LastReview.IsZero() {
		elapsed = dayDiff(c.LastReview, now)
	}
	if c.State != New && (c.Difficulty != 0 || c.Stability != 0) && (c.Difficulty < 1 || c.Stability < sMin) {
		return c, ReviewLog{}, fmt.Errorf("fsrs: invalid memory state (difficulty %v, stability %v)", c.Difficulty, c.Stability)
	}
	if elapsed < 0 {
		return c, ReviewLog{}, fmt.Errorf("fsrs: review at %s is before the last one (%s)", now, c.LastReview)
	}
	// cur is ts-fsrs's this.current: the card with the review counted.
	cur := c
	cur.LastReview = now
	cur.ElapsedDays = elapsed
	cur.Reps++
	log := ReviewLog{
		Rating: g, State: c.State, Due: c.Due, Stability: c.Stability, Difficulty: c.Difficulty,
		ElapsedDays: elapsed, LastElapsedDays: c.ElapsedDays, ScheduledDays: c.ScheduledDays,
		LearningSteps: c.LearningSteps, Review: now,
	}
	if !c.LastReview.IsZero() {
		log.Due = c.LastReview
	}
	next := cur
	switch c.State {
	case New, Learning, Relearning:
		next.Difficulty, next.Stability = s.nextState(cur.Difficulty, cur.Stability, elapsed, g, -1)
		to := c.State
		if c.State == New {
			to = Learning
		}
		s.applySteps(c, &next, g, to, elapsed, now)
	case Review:
		r := s.forgettingCurve(elapsed, cur.Stability)
		if g == Again {
			next.Difficulty, next.Stability = s.nextState(cur.Difficulty, cur.Stability, elapsed, g, r)
			s.applySteps(c, &next, g, Relearning, elapsed, now)
			next.Lapses++
			break
		}
		// Hard, good and easy intervals are computed together and kept in order.
		var st [5]float64
		for _, h := range []Rating{Hard, Good, Easy} {
			_, st[h] = s.nextState(cur.Difficulty, cur.Stability, elapsed, h, r)
		}
		hard := s.nextInterval(st[Hard])
		good := s.nextInterval(st[Good])
		hard = min(hard, good)
		good = max(good, hard+1)
		easy := max(s.nextInterval(st[Easy]), good+1)
		ivl := map[Rating]int{Hard: hard, Good: good, Easy: easy}[g]
		next.Difficulty, next.Stability = s.nextState(cur.Difficulty, cur.Stability, elapsed, g, r)
		next.ScheduledDays = ivl
		next.Due = now.Add(time.Duration(ivl) * 24 * time.Hour)
		next.State = Review
		next.LearningSteps = 0
	}
	return next, log, nil
}
