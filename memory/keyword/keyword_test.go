package keyword

import (
	"context"
	"errors"
	"fmt"
	"github.com/blevesearch/bleve/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func openTest(t *testing.T) (*Index, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "kw")
	ix, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ix.Close() })
	return ix, dir
}

var day = time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)

func turn(user, conv string, n int, text string) Doc {
	return Doc{
		ID: conv + ":" + string(rune('0'+n)), Kind: KindTurn, UserID: user, ConversationID: conv,
		Title: "Chat " + conv, Number: n, Text: text, UserText: text, Time: day.Add(time.Duration(n) * time.Hour),
	}
}

func find(t *testing.T, ix *Index, q Query) []Hit {
	t.Helper()
	hits, err := ix.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	return hits
}

func ids(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.ID)
	}
	return out
}

func TestUserIsolation(t *testing.T) {
	ix, _ := openTest(t)
	must(t, ix.Upsert(
		turn("alice", "a1", 1, "my secret recipe for lemon cake"),
		turn("bob", "b1", 1, "I bought a lemon tree"),
	))
	for _, q := range []string{"lemon", "secret recipe", "cake"} {
		for _, h := range find(t, ix, Query{UserID: "bob", Text: q}) {
			if h.ConversationID != "b1" {
				t.Fatalf("bob searching %q sees %+v", q, h)
			}
		}
	}
	if hits := find(t, ix, Query{UserID: "carol", Text: "lemon"}); len(hits) != 0 {
		t.Fatalf("unknown user sees %v", ids(hits))
	}
	if _, err := ix.Search(context.Background(), Query{Text: "lemon"}); !errors.Is(err, ErrNoUser) {
		t.Fatalf("search without user: %v", err)
	}
}

func TestHitFields(t *testing.T) {
	ix, _ := openTest(t)
	must(t, ix.Upsert(turn("u", "c", 3, "we adopted a puppy named Max")))
	hits := find(t, ix, Query{UserID: "u", Text: "What is the puppy called?"})
	if len(hits) != 1 {
		t.Fatalf("hits %v", hits)
	}
	h := hits[0]
	if h.ID != "c:3" || h.Kind != KindTurn || h.ConversationID != "c" || h.Number != 3 || h.Score <= 0 {
		t.Fatalf("hit %+v", h)
	}
}

// TestRelatedHitsSaySo: a turn ranked for the words of the best hit
// (feedback), without the query's own words, is marked Related; a turn
// holding the query's words is not.
func TestRelatedHitsSaySo(t *testing.T) {
	ix, _ := openTest(t)
	must(t, ix.Upsert(
		turn("u", "a", 1, "how do I slice a python list with a negative step and stride"),
		turn("u", "b", 1, "python list stride and negative step explained"),
		turn("u", "c", 1, "we went hiking in the mountains"),
	))
	hits := find(t, ix, Query{UserID: "u", Text: "slice"})
	if len(hits) < 2 || hits[0].ID != "a:1" || hits[0].Related || hits[1].ID != "b:1" {
		t.Fatalf("want the turn with the word, then the one feedback brings: %+v", hits)
	}
	for _, h := range hits[1:] {
		if !h.Related {
			t.Errorf("%s holds no %q yet is not marked related", h.ID, "slice")
		}
	}
}

func TestFilters(t *testing.T) {
	ix, _ := openTest(t)
	note := Doc{ID: "n1", Kind: KindNote, UserID: "u", Text: "garden plans: tomatoes", Time: day.Add(48 * time.Hour)}
	summary := Doc{ID: "s1", Kind: KindSummary, UserID: "u", ConversationID: "c2", Text: "talked about tomatoes", Time: day.Add(72 * time.Hour)}
	must(t, ix.Upsert(
		turn("u", "c1", 1, "planting tomatoes today"),
		turn("u", "c2", 1, "tomatoes need sun"),
		note, summary,
	))
	cases := []struct {
		name string
		q    Query
		want string
	}{
		{"kind note", Query{Kinds: []Kind{KindNote}}, "n1"},
		{"kinds note+summary", Query{Kinds: []Kind{KindNote, KindSummary}}, "n1 s1"},
		{"conversation", Query{ConversationID: "c2"}, "c2:1 s1"},
		{"conversation and kind", Query{ConversationID: "c2", Kinds: []Kind{KindTurn}}, "c2:1"},
		{"since", Query{Since: day.Add(24 * time.Hour)}, "n1 s1"},
		{"until (exclusive)", Query{Until: day.Add(48 * time.Hour)}, "c1:1 c2:1"},
		{"since and until", Query{Since: day.Add(47 * time.Hour), Until: day.Add(49 * time.Hour)}, "n1"},
	}
	for _, c := range cases {
		c.q.UserID, c.q.Text = "u", "tomatoes"
		got := ids(find(t, ix, c.q))
		if sortedJoin(got) != c.want {
			t.Errorf("%s: got %v, want %s", c.name, got, c.want)
		}
	}
}

func sortedJoin(s []string) string {
	c := append([]string(nil), s...)
	for i := range c {
		for j := i + 1; j < len(c); j++ {
			if c[j] < c[i] {
				c[i], c[j] = c[j], c[i]
			}
		}
	}
	return strings.Join(c, " ")
}

func TestUpsertReplacesAndDeleteRemoves(t *testing.T) {
	ix, _ := openTest(t)
	must(t, ix.Upsert(turn("u", "c", 1, "we went kayaking")))
	must(t, ix.Upsert(turn("u", "c", 1, "we went climbing")))
	if n, _ := ix.Count(); n != 1 {
		t.Fatalf("count %d after replace", n)
	}
	if hits := find(t, ix, Query{UserID: "u", Text: "kayaking"}); len(hits) != 0 {
		t.Fatalf("old text still found: %v", ids(hits))
	}
	if hits := find(t, ix, Query{UserID: "u", Text: "climbing"}); len(hits) != 1 {
		t.Fatalf("new text not found: %v", ids(hits))
	}
	must(t, ix.Delete("c:1", "missing"))
	if n, _ := ix.Count(); n != 0 {
		t.Fatalf("count %d after delete", n)
	}
	if hits := find(t, ix, Query{UserID: "u", Text: "climbing"}); len(hits) != 0 {
		t.Fatalf("deleted doc found: %v", ids(hits))
	}
}

func TestInvalidDocs(t *testing.T) {
	ix, _ := openTest(t)
	for _, d := range []Doc{
		{Kind: KindTurn, UserID: "u", Text: "x"},
		{ID: "a", Kind: KindTurn, Text: "x"},
		{ID: "a", Kind: "other", UserID: "u", Text: "x"},
	} {
		if err := ix.Upsert(d); err == nil {
			t.Errorf("%+v accepted", d)
		}
	}
}

func TestReopenPersists(t *testing.T) {
	ix, dir := openTest(t)
	must(t, ix.Upsert(turn("u", "c", 1, "the wedding is in Lisbon")))
	must(t, ix.SetMeta("watermark", "42"))
	must(t, ix.Close())
	if err := ix.Close(); !errors.Is(err, ErrClosed) {
		t.Fatalf("second close: %v", err)
	}
	if _, err := ix.Search(context.Background(), Query{UserID: "u", Text: "x"}); !errors.Is(err, ErrClosed) {
		t.Fatalf("search after close: %v", err)
	}
	ix2, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix2.Close()
	if hits := find(t, ix2, Query{UserID: "u", Text: "Lisbon wedding"}); len(hits) != 1 {
		t.Fatalf("after reopen: %v", ids(hits))
	}
	if v, _ := ix2.Meta("watermark"); v != "42" {
		t.Fatalf("meta %q", v)
	}
	if v, _ := ix2.Meta("unset"); v != "" {
		t.Fatalf("unset meta %q", v)
	}
}

func TestCorruptDir(t *testing.T) {
	cases := map[string]func(dir string) error{
		"stray file": func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello"), 0o600)
		},
		"garbage meta": func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "index_meta.json"), []byte("{not json"), 0o600)
		},
		"truncated store": func(dir string) error {
			ix, err := Open(dir)
			if err != nil {
				return err
			}
			if err := ix.Upsert(turn("u", "c", 1, "hello")); err != nil {
				return err
			}
			if err := ix.Close(); err != nil {
				return err
			}
			return filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
				if err == nil && !info.IsDir() && filepath.Base(p) != "index_meta.json" {
					return os.WriteFile(p, []byte("garbage"), 0o600)
				}
				return err
			})
		},
	}
	for name, spoil := range cases {
		dir := filepath.Join(t.TempDir(), "kw")
		must(t, os.MkdirAll(dir, 0o700))
		must(t, spoil(dir))
		ix, err := Open(dir)
		if !errors.Is(err, ErrCorrupt) {
			if ix != nil {
				ix.Close()
			}
			t.Errorf("%s: got %v, want ErrCorrupt", name, err)
		}
	}
}

func TestEmptyDirIsCreated(t *testing.T) {
	dir := t.TempDir() // exists, empty
	ix, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if n, err := ix.Count(); err != nil || n != 0 {
		t.Fatalf("count %d, %v", n, err)
	}
}

func TestStaleVersion(t *testing.T) {
	ix, dir := openTest(t)
	must(t, ix.withIndex(func(bi bleve.Index) error { return bi.SetInternal([]byte(versionKey), []byte("old")) }))
	must(t, ix.Close())
	if _, err := Open(dir); !errors.Is(err, ErrStale) {
		t.Fatalf("got %v, want ErrStale", err)
	}
}

func TestStemming(t *testing.T) {
	ix, _ := openTest(t)
	must(t, ix.Upsert(
		turn("u", "c", 1, "I went running by the river"),
		turn("u", "c", 2, "Caroline's paintings were shown"),
		turn("u", "c", 3, "the children bought new shoes"),
	))
	cases := map[string]string{
		"runs":              "c:1",
		"ran":               "c:1",
		"where did I go":    "c:1",
		"Caroline painting": "c:2",
		"child buys shoe":   "c:3",
	}
	for q, want := range cases {
		hits := find(t, ix, Query{UserID: "u", Text: q})
		if len(hits) == 0 || hits[0].ID != want {
			t.Errorf("%q: got %v, want %s first", q, ids(hits), want)
		}
	}
}

func TestOddQueries(t *testing.T) {
	ix, _ := openTest(t)
	must(t, ix.Upsert(turn("u", "c", 1, "a quiet weekend at the lake")))
	queries := []string{
		"", "   ", "what did they do?", "?!...,;", "\xff\xfe\xfd", "lake \xff weekend",
		strings.Repeat("lake weekend quiet ", 600), strings.Repeat("x", 10000),
		"lake AND weekend OR -quiet +\"at\" title:lake *", "ünïcödé 日本語 🎉 lake",
	}
	for _, q := range queries {
		if _, err := ix.Search(context.Background(), Query{UserID: "u", Text: q, Limit: -3}); err != nil {
			t.Errorf("%.40q: %v", q, err)
		}
	}
	if hits := find(t, ix, Query{UserID: "u", Text: "what did they do?"}); len(hits) != 0 {
		t.Errorf("stop words only matched %v", ids(hits))
	}
	if hits := find(t, ix, Query{UserID: "u", Text: "lake \xff weekend"}); len(hits) != 1 {
		t.Errorf("invalid UTF-8 around words: %v", ids(hits))
	}
}

func TestLimitAndOrder(t *testing.T) {
	ix, _ := openTest(t)
	var docs []Doc
	for i := 1; i <= 9; i++ {
		text := "talking about the weather"
		if i == 5 {
			text = "the hiking trip to the glacier was long; the glacier was huge"
		}
		docs = append(docs, turn("u", "c", i, text))
	}
	must(t, ix.Upsert(docs...))
	hits := find(t, ix, Query{UserID: "u", Text: "glacier hiking", Limit: 3})
	if len(hits) == 0 || len(hits) > 3 || hits[0].ID != "c:5" {
		t.Fatalf("hits %v", ids(hits))
	}
	for i := 1; i < len(hits); i++ {
		if hits[i].Score > hits[i-1].Score {
			t.Fatalf("not sorted: %+v", hits)
		}
	}
}

func TestAnswerType(t *testing.T) {
	ty := newTyper()
	for q, want := range map[string]string{
		"When did you move?":             typeTime,
		"In which year was that?":        typeTime,
		"What did you eat?":              "",
		"where is the when-do-we-go app": "",
	} {
		if got := ty.queryType(q); got != want {
			t.Errorf("queryType(%q) = %q, want %q", q, got, want)
		}
	}
	for text, want := range map[string]string{
		"I moved there last week":      typeTime,
		"It happened on 8 May":         typeTime,
		"I may go":                     "",
		"Went to Paris in 2019, loved": typeTime,
		"Nice hat":                     "",
	} {
		if got := ty.docTypes(text); got != want {
			t.Errorf("docTypes(%q) = %q, want %q", text, got, want)
		}
	}
}

func TestAnalyzer(t *testing.T) {
	a := newAnalyzer()
	got := strings.Join(a.terms("Caroline’s kids went running on the 8th — didn't they? I'm SO happy!!"), " ")
	if want := "carolin kid go run 8 happi"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	// French elisions: the word after the apostrophe is the one searched.
	got = strings.Join(a.terms("l'hôpital près de la côte d’Azur, qu'il aime"), " ")
	if want := "hopit pres de la cote azur il aim"; got != want {
		t.Fatalf("French: got %q, want %q", got, want)
	}
	// Accents of Latin letters fold as people type them without; other
	// scripts keep their marks, which make other letters there.
	for text, want := range map[string]string{
		"Café in Malmö":   "cafe malmo",
		"cafe in malmo":   "cafe malmo",
		"Straße, Øresund": "strass oresund",
		"São Paulo, Łódź": "sao paulo lodz",
		"мой дом":         "мой дом",
		"がっこう":            "がっ っこ こう",
		"東京タワーに行きました":     "東京 京タ タワ ワー ーに に行 行き きま まし した",
		"我爱北京":            "我爱 爱北 北京",
		"学校에서 공부":         "学校 校에 에서 공부",
		"iPhone的电池":       "iphon 的电 电池",
		"naïve résumé":    "naiv resum",
		"ÉCOLE NORMALE":   "ecol normal",
	} {
		if got := strings.Join(a.terms(text), " "); got != want {
			t.Errorf("terms(%q) = %q, want %q", text, got, want)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestConcurrentUse(t *testing.T) {
	ix, _ := openTest(t)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 10; i++ {
				conv := fmt.Sprintf("c%d", w)
				if err := ix.Upsert(turn("u", conv, i%9+1, fmt.Sprintf("message %d about sailing boats", i))); err != nil {
					errs <- err
				}
				if _, err := ix.Search(context.Background(), Query{UserID: "u", Text: "sailing"}); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n, _ := ix.Count(); n != 36 {
		t.Fatalf("count %d, want 36", n)
	}
}

// TestRebuildingIsSeenWhileARebuildRuns: while one process rebuilds the
// index (mneme reindex), another's search can tell, and says so rather
// than that turns are missing; before and after, it is not.
func TestRebuildingIsSeenWhileARebuildRuns(t *testing.T) {
	ix, dir := openTest(t)
	other, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if other.Rebuilding() {
		t.Fatal("rebuilding before any rebuild")
	}
	building, release := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- ix.Rebuild(context.Background(), func(func(...Doc) error) error {
			close(building)
			<-release
			return nil
		}, func() error { return nil })
	}()
	<-building
	seen := other.Rebuilding()
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !seen || other.Rebuilding() {
		t.Fatalf("rebuilding while the rebuild ran: %v; after: %v", seen, other.Rebuilding())
	}
}
