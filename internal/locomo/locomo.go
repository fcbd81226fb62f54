// Package locomo loads the LoCoMo long-term conversation benchmark
// (Maharana et al., ACL 2024) and turns it into mneme's retrieval yardstick:
// import records, indexed turns, questions with normalised evidence, and the
// evidence-recall metric. It is test and benchmark support only; the data
// set (CC BY-NC 4.0) is never shipped with the product.
package locomo

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// ErrFormat is returned when the benchmark file does not have the expected shape.
var ErrFormat = errors.New("locomo: unexpected format")

// Sample is one LoCoMo conversation between two speakers with its questions.
type Sample struct {
	ID       string
	SpeakerA string
	SpeakerB string
	Sessions []Session
	QA       []QA
}

// Session is one dated chat session of a sample.
type Session struct {
	Number   int
	DateTime string // as written in the data, e.g. "1:56 pm on 8 May, 2023"
	Messages []Message
}

// Message is one dialogue line of a session.
type Message struct {
	Speaker     string
	DiaID       string
	Text        string
	BlipCaption string
}

// QA is one benchmark question as written in the data.
type QA struct {
	Question string
	Answer   string // adversarial_answer for category 5 when answer is absent
	Category int
	Evidence []string // raw, not normalised
}

type rawSample struct {
	SampleID     string                     `json:"sample_id"`
	Conversation map[string]json.RawMessage `json:"conversation"`
	QA           []rawQA                    `json:"qa"`
}

type rawQA struct {
	Question          string          `json:"question"`
	Answer            json.RawMessage `json:"answer"`
	AdversarialAnswer json.RawMessage `json:"adversarial_answer"`
	Evidence          []string        `json:"evidence"`
	Category          int             `json:"category"`
}

type rawMessage struct {
	Speaker     string `json:"speaker"`
	DiaID       string `json:"dia_id"`
	Text        string `json:"text"`
	BlipCaption string `json:"blip_caption"`
}

var sessionKey = regexp.MustCompile(`^session_(\d+)$`)

// Load reads a LoCoMo JSON file (a list of samples).
func Load(path string) ([]Sample, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("locomo: %w", err)
	}
	var raw []rawSample
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrFormat, path, err)
	}
	samples := make([]Sample, 0, len(raw))
	for _, r := range raw {
		s, err := convertSample(r)
		if err != nil {
			return nil, err
		}
		samples = append(samples, s)
	}
	return samples, nil
}

func convertSample(r rawSample) (Sample, error) {
	s := Sample{ID: r.SampleID}
	if err := unmarshalString(r.Conversation["speaker_a"], &s.SpeakerA); err != nil {
		return s, fmt.Errorf("%w: %s speaker_a: %w", ErrFormat, r.SampleID, err)
	}
	if err := unmarshalString(r.Conversation["speaker_b"], &s.SpeakerB); err != nil {
		return s, fmt.Errorf("%w: %s speaker_b: %w", ErrFormat, r.SampleID, err)
	}
	for key, value := range r.Conversation {
		m := sessionKey.FindStringSubmatch(key)
		if m == nil {
			continue
		}
		session, err := convertSession(r, m[1], value)
		if err != nil {
			return s, err
		}
		s.Sessions = append(s.Sessions, session)
	}
	sort.Slice(s.Sessions, func(i, j int) bool { return s.Sessions[i].Number < s.Sessions[j].Number })
	for _, q := range r.QA {
		s.QA = append(s.QA, QA{
			Question: q.Question,
			Answer:   answerText(q),
			Category: q.Category,
			Evidence: q.Evidence,
		})
	}
	return s, nil
}

func convertSession(r rawSample, number string, value json.RawMessage) (Session, error) {
	n, _ := strconv.Atoi(number)
	session := Session{Number: n}
	var msgs []rawMessage
	if err := json.Unmarshal(value, &msgs); err != nil {
		return session, fmt.Errorf("%w: %s session_%s: %w", ErrFormat, r.SampleID, number, err)
	}
	if raw, ok := r.Conversation["session_"+number+"_date_time"]; ok {
		if err := unmarshalString(raw, &session.DateTime); err != nil {
			return session, fmt.Errorf("%w: %s session_%s_date_time: %w", ErrFormat, r.SampleID, number, err)
		}
	}
	for _, m := range msgs {
		session.Messages = append(session.Messages, Message(m))
	}
	return session, nil
}

func unmarshalString(raw json.RawMessage, dst *string) error {
	if raw == nil {
		return nil
	}
	return json.Unmarshal(raw, dst)
}

// answerText renders an answer that may be a JSON string or number.
func answerText(q rawQA) string {
	raw := q.Answer
	if len(raw) == 0 || string(raw) == "null" {
		raw = q.AdversarialAnswer
	}
	if len(raw) == 0 {
		return ""
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s
	}
	return strings.TrimSpace(string(raw))
}

// dateLayout is the layout of session_N_date_time values.
const dateLayout = "3:04 pm on 2 January, 2006"

// ParseDateTime parses a session date such as "1:56 pm on 8 May, 2023" (UTC).
func ParseDateTime(s string) (time.Time, error) {
	t, err := time.Parse(dateLayout, strings.TrimSpace(s))
	if err != nil {
		return time.Time{}, fmt.Errorf("%w: date %q: %w", ErrFormat, s, err)
	}
	return t, nil
}
