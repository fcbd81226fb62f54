package locomo

import (
	"fmt"
	"strings"
	"time"
)

// Record is one line of mneme's import JSONL.
type Record struct {
	User         string `json:"user"`
	Conversation string `json:"conversation"`
	Title        string `json:"title"`
	Role         string `json:"role"`
	Content      string `json:"content"`
	Time         string `json:"time"`
	Ref          string `json:"ref"`
}

// Roles used in records.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// ImportLines converts samples to import records: one user per sample (the
// sample id), one conversation per session titled "Session N"; the session's
// first speaker is the user and the other the assistant; content is
// "Name: text" plus " [shared a photo: caption]" for image turns; ref is the
// dia_id; a message's time is its session's date plus its index in seconds.
// A session whose date cannot be parsed has no time: mneme's import
// refuses times before 1970, and stores such lines at the time of import.
func ImportLines(samples []Sample) []Record {
	var out []Record
	for _, s := range samples {
		for _, session := range s.Sessions {
			out = append(out, sessionRecords(s.ID, session)...)
		}
	}
	return out
}

func sessionRecords(user string, session Session) []Record {
	if len(session.Messages) == 0 {
		return nil
	}
	start, err := ParseDateTime(session.DateTime)
	dated := err == nil
	first := session.Messages[0].Speaker
	conversation := fmt.Sprintf("%s-session_%d", user, session.Number)
	title := fmt.Sprintf("Session %d", session.Number)
	records := make([]Record, 0, len(session.Messages))
	for i, m := range session.Messages {
		role := RoleAssistant
		if m.Speaker == first {
			role = RoleUser
		}
		var at string
		if dated {
			at = start.Add(time.Duration(i) * time.Second).Format(time.RFC3339)
		}
		records = append(records, Record{
			User:         user,
			Conversation: conversation,
			Title:        title,
			Role:         role,
			Content:      content(m),
			Time:         at,
			Ref:          m.DiaID,
		})
	}
	return records
}

func content(m Message) string {
	text := m.Speaker + ": " + m.Text
	if m.BlipCaption != "" {
		text += " [shared a photo: " + m.BlipCaption + "]"
	}
	return text
}

// Turn is a user message plus the answers that follow it, as indexed for search.
type Turn struct {
	User         string
	Conversation string
	Title        string
	Number       int // 1-based within the conversation
	Text         string
	UserText     string
	Time         time.Time
	Refs         []string
}

// Turns groups records into turns per conversation, in order of first
// appearance. A turn is a user message plus the answers that follow it;
// messages before the first user message join the first turn; an unanswered
// user message joins the next turn, and a trailing one is a turn of its own.
// Text is the turn's messages in order joined by "\n"; UserText the user
// messages'.
func Turns(records []Record) []Turn {
	type key struct{ user, conversation string }
	var order []key
	groups := map[key][]Record{}
	for _, r := range records {
		k := key{r.User, r.Conversation}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	var out []Turn
	for _, k := range order {
		out = append(out, conversationTurns(groups[k])...)
	}
	return out
}

func conversationTurns(records []Record) []Turn {
	var turns []Turn
	var cur []Record
	answered, hasUser := false, false
	flush := func() {
		if len(cur) > 0 {
			turns = append(turns, buildTurn(cur, len(turns)+1))
		}
		cur, answered, hasUser = nil, false, false
	}
	for _, r := range records {
		if r.Role == RoleUser && answered {
			flush()
		}
		cur = append(cur, r)
		switch {
		case r.Role == RoleUser:
			hasUser = true
		case hasUser:
			answered = true
		}
	}
	flush()
	return turns
}

func buildTurn(records []Record, number int) Turn {
	t := Turn{
		User:         records[0].User,
		Conversation: records[0].Conversation,
		Title:        records[0].Title,
		Number:       number,
	}
	var all, user []string
	for _, r := range records {
		all = append(all, r.Content)
		if r.Role == RoleUser {
			user = append(user, r.Content)
			if t.Time.IsZero() {
				t.Time, _ = time.Parse(time.RFC3339, r.Time)
			}
		}
		if r.Ref != "" {
			t.Refs = append(t.Refs, r.Ref)
		}
	}
	if t.Time.IsZero() {
		t.Time, _ = time.Parse(time.RFC3339, records[0].Time)
	}
	t.Text = strings.Join(all, "\n")
	t.UserText = strings.Join(user, "\n")
	return t
}
