package keyword

import (
	"slices"
	"testing"
	"time"
)

// now is the present of these tests: Wednesday 17 May 2023, 10:00 UTC.
var now = time.Date(2023, 5, 17, 10, 0, 0, 0, time.UTC)

func at(y int, m time.Month, d, h int) time.Time { return time.Date(y, m, d, h, 0, 0, 0, time.UTC) }

// written is a turn alone in its conversation (no neighbour or title to help it).
func written(id string, when time.Time, text string) Doc {
	return Doc{ID: id + ":1", Kind: KindTurn, UserID: "u", ConversationID: id, Title: "Chat", Number: 1, Text: text, Time: when}
}

// TestPlainWordsDoNotMatchDates: words that only look like times ("may",
// "even" from "evening", "3", a bare year) find the turns that say them,
// never turns merely written at such a time.
func TestPlainWordsDoNotMatchDates(t *testing.T) {
	ix, _ := openTest(t)
	must(t, ix.Upsert(
		written("bike", at(2023, 5, 10, 9), "We fixed the bike chain"),
		written("tomatoes", at(2023, 7, 1, 9), "How do I grow tomatoes on a balcony?"),
		written("dinner", at(2023, 7, 2, 20), "Dinner recipes with lentils"), // a Sunday evening
		written("numbers", at(2023, 7, 4, 9), "Even numbers are divisible by two"),
		written("hiking", at(2023, 8, 3, 10), "We went hiking in the hills"),
		written("python", at(2023, 8, 5, 10), "Python 3 keeps dict insertion order"),
		written("shoes", at(2024, 2, 10, 10), "Bought new running shoes"),
		written("fence", at(2024, 6, 11, 10), "Painted the fence green"),
		written("budget", at(2023, 11, 20, 10), "The budget for 2024 is tight"),
	))
	for _, c := range []struct{ query, want string }{
		{"may I ask about tomatoes", "tomatoes:1"},
		{"even", "numbers:1"},
		{"python 3", "python:1"},
		{"2024", "budget:1"},
	} {
		got := ids(find(t, ix, Query{UserID: "u", Text: c.query, Now: now}))
		if !slices.Equal(got, []string{c.want}) {
			t.Errorf("%q found %v, want only %s", c.query, got, c.want)
		}
	}
	// The same times, named as times, do find the turns written then (the
	// words still match as words too: "evening" finds "even numbers").
	for _, c := range []struct{ query, want string }{
		{"what did we cook on Sunday evening", "dinner:1"},
		{"what did I do on the 3rd", "hiking:1"},
		{"what did I do in May", "bike:1"},
	} {
		got := ids(find(t, ix, Query{UserID: "u", Text: c.query, Now: now}))
		if !slices.Contains(got, c.want) {
			t.Errorf("%q found %v, want %s among them", c.query, got, c.want)
		}
	}
	got := ids(find(t, ix, Query{UserID: "u", Text: "what did I do in 2024", Now: now}))
	if !slices.Contains(got, "shoes:1") || !slices.Contains(got, "fence:1") {
		t.Errorf(`"in 2024" found %v, want the turns written in 2024`, got)
	}
}

// TestTemporalQueriesUseTime: for each temporal expression two turns say
// the same thing at different times. Without the expression the tie goes
// to the turn with the smaller id (written at the other time); with it,
// the turn written at the time named comes first.
func TestTemporalQueriesUseTime(t *testing.T) {
	cases := []struct {
		topic, expr string
		on, off     time.Time
	}{
		{"garden", "in May 2023", at(2023, 5, 10, 15), at(2023, 7, 12, 15)},
		{"bicycle", "on 8 May 2023", at(2023, 5, 8, 15), at(2023, 5, 9, 15)},
		{"piano", "May 8th", at(2022, 5, 8, 15), at(2022, 6, 8, 15)},
		{"kitchen", "last week", at(2023, 5, 10, 15), at(2023, 4, 19, 15)},
		{"holiday", "yesterday", at(2023, 5, 16, 15), at(2023, 5, 1, 15)},
		{"roof", "in 2021", at(2021, 3, 3, 15), at(2023, 3, 3, 15)},
		{"violin", "three days ago", at(2023, 5, 14, 15), at(2023, 5, 7, 15)},
		{"sofa", "this week", at(2023, 5, 15, 15), at(2023, 5, 10, 15)},
		{"lamp", "two weeks ago", at(2023, 5, 3, 15), at(2023, 5, 12, 15)},
		{"boat", "last friday", at(2023, 5, 12, 15), at(2023, 5, 5, 15)},
		{"tax", "when did we talk about it in 2022", at(2022, 9, 1, 15), at(2023, 1, 1, 15)},
	}
	ix, _ := openTest(t)
	for _, c := range cases {
		text := "We talked about the " + c.topic + " plans"
		must(t, ix.Upsert(written("a-"+c.topic, c.off, text), written("b-"+c.topic, c.on, text)))
	}
	for _, c := range cases {
		plain := ids(find(t, ix, Query{UserID: "u", Text: c.topic + " plans", Now: now}))
		timed := ids(find(t, ix, Query{UserID: "u", Text: c.topic + " plans " + c.expr, Now: now}))
		if len(plain) == 0 || plain[0] != "a-"+c.topic+":1" {
			t.Fatalf("%s plans: %v, want the tie to go to a-%s", c.topic, plain, c.topic)
		}
		if len(timed) == 0 || timed[0] != "b-"+c.topic+":1" {
			t.Errorf("%s plans %s: %v, want b-%s (written %s) first", c.topic, c.expr, timed, c.topic, c.on.Format("2 Jan 2006"))
		}
	}
}

// TestTimeOnlyQuery: a query that is only a temporal expression finds what
// was written then.
func TestTimeOnlyQuery(t *testing.T) {
	ix, _ := openTest(t)
	must(t, ix.Upsert(
		written("then", at(2023, 5, 16, 9), "Ordered a new desk chair"),
		written("before", at(2023, 4, 2, 9), "Called the plumber"),
	))
	got := ids(find(t, ix, Query{UserID: "u", Text: "yesterday", Now: now}))
	if !slices.Equal(got, []string{"then:1"}) {
		t.Errorf("yesterday: %v, want then:1", got)
	}
}

// Ordinary sentences with "may" or "march" beside a number or after
// "this" are not dates.
func TestAmbiguousMonthsNeedMoreThanANumber(t *testing.T) {
	now := time.Date(2024, 6, 15, 12, 0, 0, 0, time.UTC)
	for _, q := range []string{"this may take a while", "python 3 may crash", "march 10 miles", "it may 2 be"} {
		if tq := queryTime(q, now, false); !tq.empty() {
			t.Errorf("%q read as a time: %+v", q, tq)
		}
	}
	for _, q := range []string{"on 3 may", "may 3rd", "may 3 2023", "in march", "the 10th of march"} {
		if tq := queryTime(q, now, false); tq.empty() {
			t.Errorf("%q not read as a time", q)
		}
	}
}
