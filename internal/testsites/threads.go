package testsites

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The Hacker News thread: story HNStory and its comments, nested three deep, with a
// deleted comment that has a reply, and a dead one. HNBigStory has HNBigKids top-level
// comments, for the limits on count and concurrency.
const (
	HNStory    = 1000
	HNBigStory = 2000
	HNBigKids  = 60
	// HNFact is in alice's comment (1001); HNDeep in carol's (1006), three deep.
	HNFact  = "Bees use polarised light patterns in the sky, which stay visible through thin clouds."
	HNDeep  = "The sun compass is corrected by an internal clock as the sun moves across the sky."
	HNDead  = "BUY CHEAP WATCHES"
	HNAfter = "a reply to a deleted comment"
)

var hnItems = map[int64]map[string]any{
	1000: {"id": 1000, "type": "story", "by": "pg", "time": 1700000000, "title": "Ask HN: How do bees find their way home?",
		"text": "I read that bees navigate by the sun.<p>How does that work on cloudy days?", "kids": []int64{1001, 1002, 1003}, "score": 120, "descendants": 6},
	1001: {"id": 1001, "type": "comment", "by": "alice", "parent": 1000, "time": 1700000100,
		"text": HNFact + "<p>They also memorise landmarks near the hive, like a tree or a wall.", "kids": []int64{1004, 1005}},
	1004: {"id": 1004, "type": "comment", "by": "bob", "parent": 1001, "time": 1700000200,
		"text": "Landmark learning happens during orientation flights, when young foragers first leave the hive.", "kids": []int64{1006}},
	1006: {"id": 1006, "type": "comment", "by": "carol", "parent": 1004, "time": 1700000300, "text": HNDeep},
	1005: {"id": 1005, "type": "comment", "deleted": true, "parent": 1001, "time": 1700000250, "kids": []int64{1007}},
	1007: {"id": 1007, "type": "comment", "by": "dave", "parent": 1005, "time": 1700000400,
		"text": "This is " + HNAfter + ", which still shows on the site under [deleted]."},
	1002: {"id": 1002, "type": "comment", "by": "spammer", "parent": 1000, "time": 1700000150, "dead": true, "text": HNDead},
	1003: {"id": 1003, "type": "comment", "by": "frank", "parent": 1000, "time": 1700000160,
		"text": "The waggle dance tells other foragers the direction of the food relative to the sun: <i>the angle</i> of the run from vertical. See <a href=\"https:&#x2F;&#x2F;en.wikipedia.org&#x2F;wiki&#x2F;Waggle_dance\" rel=\"nofollow\">https:&#x2F;&#x2F;en.wikipedia.org&#x2F;wiki&#x2F;Waggle_dance</a>"},
}

func init() {
	kids := make([]int64, HNBigKids)
	for i := range kids {
		id := int64(HNBigStory + 1 + i)
		kids[i] = id
		hnItems[id] = map[string]any{"id": id, "type": "comment", "by": fmt.Sprintf("user%d", i), "parent": HNBigStory,
			"time": 1700001000 + i, "text": fmt.Sprintf("Comment number %d about hive ventilation.", i)}
	}
	hnItems[HNBigStory] = map[string]any{"id": HNBigStory, "type": "story", "by": "hivemind", "time": 1700001000,
		"title": "Show HN: a hive ventilation monitor", "url": "https://example.com/hive", "kids": kids}
}

// hnItem serves /v0/item/ID.json as the Firebase API does: the item, or null.
func (s *Sites) hnItem(w http.ResponseWriter, r *http.Request) {
	s.HNRequests.Add(1)
	now := s.hnNow.Add(1)
	defer s.hnNow.Add(-1)
	for {
		m := s.HNInFlight.Load()
		if now <= m || s.HNInFlight.CompareAndSwap(m, now) {
			break
		}
	}
	time.Sleep(5 * time.Millisecond) // a round trip, so that requests overlap
	id, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/v0/item/"), ".json"), 10, 64)
	if err != nil || !strings.HasPrefix(r.URL.Path, "/v0/item/") {
		http.Error(w, `{"error":"Permission denied"}`, http.StatusUnauthorized)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	it, ok := hnItems[id]
	if !ok {
		w.Write([]byte("null"))
		return
	}
	json.NewEncoder(w).Encode(it)
}

// The Reddit thread.
const (
	RedditPath = "/r/beekeeping/comments/abc123/first_hive_advice/"
	RedditFact = "Start with two hives so that you can compare them when one looks weak."
	RedditDeep = "Feed sugar syrup in autumn only if the hive is light when you lift it."
)

func redditListing() []any {
	t1 := func(id, author, body string, replies any) map[string]any {
		return map[string]any{"kind": "t1", "data": map[string]any{"id": id, "name": "t1_" + id, "author": author, "body": body,
			"permalink": RedditPath + id + "/", "created_utc": 1700000000.0, "score": 10, "replies": replies}}
	}
	listing := func(children ...any) map[string]any {
		return map[string]any{"kind": "Listing", "data": map[string]any{"after": nil, "before": nil, "children": children}}
	}
	post := map[string]any{"kind": "t3", "data": map[string]any{"id": "abc123", "name": "t3_abc123", "title": "First hive advice?",
		"selftext": "I am starting with bees this spring. What should a beginner know?", "author": "newbee", "subreddit": "beekeeping",
		"permalink": RedditPath, "url": "https://www.reddit.com" + RedditPath, "is_self": true, "created_utc": 1700000000.0, "num_comments": 7}}
	return []any{
		listing(post),
		listing(
			t1("c1", "oldkeeper", RedditFact, listing(
				t1("c2", "newbee", "Thanks! How do I know when a hive is weak?", listing(
					t1("c3", "oldkeeper", RedditDeep, ""),
				)),
				t1("c4", "[deleted]", "[removed]", listing(
					t1("c5", "thirdparty", "Replying to a removed comment: inspect every week in spring.", ""),
				)),
			)),
			t1("c6", "[deleted]", "[deleted]", ""),
			map[string]any{"kind": "more", "data": map[string]any{"count": 3, "children": []string{"c7", "c8", "c9"}}},
		),
	}
}

// reddit serves a thread's .json listing; anything else is a 404 page. Reddit answers
// clients without a User-Agent with 429, as it does.
func (s *Sites) reddit(w http.ResponseWriter, r *http.Request) {
	ua := r.Header.Get("User-Agent")
	s.mu.Lock()
	s.UserAgents = append(s.UserAgents, ua)
	s.mu.Unlock()
	if ua == "" || strings.HasPrefix(ua, "Go-http-client") {
		http.Error(w, `{"message": "Too Many Requests", "error": 429}`, http.StatusTooManyRequests)
		return
	}
	if r.URL.Path != strings.TrimSuffix(RedditPath, "/")+".json" {
		http.Error(w, `{"message": "Not Found", "error": 404}`, http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	json.NewEncoder(w).Encode(redditListing())
}
