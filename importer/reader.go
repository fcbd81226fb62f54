package importer

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/mneme-dev/mneme/memory"
)

// Conversation is one conversation of an export, on its current branch,
// in order.
type Conversation struct {
	ID       string // its id in the export
	Title    string
	Created  time.Time
	Archived bool
	// Account is the account the export says the conversation is of
	// (Claude's account.uuid; "" when it says none).
	Account  string
	Messages []Message
}

// Message is one message of a conversation.
type Message struct {
	ID       string // its id in the export, unique within the conversation
	Role     memory.Role
	Text     string
	Time     time.Time
	ToolName string
	Model    string // the model that wrote an answer, when the export says
}

// Skipped counts the messages of an export that are not imported, by reason.
type Skipped struct {
	Hidden int // hidden from the conversation in the source's own screen
	Empty  int // no text (empty system messages, placeholders)
	Branch int // on a regenerated or edited-away branch
	Other  int // a role mneme has no place for
	// Unreadable: a field of the wrong type (the rest of its conversation
	// is kept).
	Unreadable int
}

// Total is the sum.
func (s Skipped) Total() int { return s.Hidden + s.Empty + s.Branch + s.Other + s.Unreadable }

// looseText is a text field that a value of another type leaves empty
// instead of failing its conversation ("title": 5 lost every message).
type looseText string

func (t *looseText) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*t = looseText(s)
	}
	return nil
}

// looseNumber is a number field that a value of another type leaves 0.
type looseNumber float64

func (n *looseNumber) UnmarshalJSON(b []byte) error {
	var f float64
	if json.Unmarshal(b, &f) == nil {
		*n = looseNumber(f)
	}
	return nil
}

// parseFunc reads one conversation of a format.
type parseFunc func(raw json.RawMessage, sk *Skipped) (Conversation, error)

// Reader reads an export's conversations one at a time: the top-level
// JSON array is decoded element by element, so a file of any size is never
// held whole.
type Reader struct {
	format  Format
	parse   parseFunc
	dec     *json.Decoder
	count   *countingReader
	size    int64
	index   int // of the next element
	started bool
	seen    map[string]int // index of each conversation id read

	Skipped Skipped
}

// NewReader reads the conversations of in (not mneme's JSON lines, which
// memory.Store.Import reads).
func NewReader(in *Input) (*Reader, error) {
	parse := map[Format]parseFunc{ChatGPT: parseChatGPT, Claude: parseClaude, OpenWebUI: parseOpenWebUI}[in.Format]
	if parse == nil {
		return nil, fmt.Errorf("%q: %w", in.Format, ErrBadFormatName)
	}
	c := &countingReader{r: in.r}
	return &Reader{format: in.Format, parse: parse, dec: json.NewDecoder(c), count: c, size: in.Size}, nil
}

// Format is the format read.
func (r *Reader) Format() Format { return r.format }

// Fraction is how much of the export has been read, from 0 to 1; -1 when
// its size is unknown.
func (r *Reader) Fraction() float64 {
	if r.size <= 0 {
		return -1
	}
	return math.Min(1, float64(r.count.n)/float64(r.size))
}

// Next returns the next conversation; io.EOF after the last. A
// conversation that cannot be read is a ConversationError, and Next can be
// called again for the ones after it. An error wrapping ErrBroken or
// ErrNotArray ends the export.
func (r *Reader) Next() (Conversation, error) {
	if !r.started {
		r.started = true
		t, err := r.dec.Token()
		if err == io.EOF {
			return Conversation{}, io.EOF
		}
		if err != nil || t != json.Delim('[') {
			return Conversation{}, ErrNotArray
		}
	}
	if !r.dec.More() {
		if _, err := r.dec.Token(); err != nil { // ]
			return Conversation{}, fmt.Errorf("%w: after %d conversations: %v", ErrBroken, r.index, err)
		}
		return Conversation{}, io.EOF
	}
	var raw json.RawMessage
	if err := r.dec.Decode(&raw); err != nil {
		return Conversation{}, fmt.Errorf("%w: in the conversation at index %d (byte %d): %v", ErrBroken, r.index, r.dec.InputOffset(), err)
	}
	i := r.index
	r.index++
	var sk Skipped
	c, err := r.parse(raw, &sk)
	if err != nil {
		var head struct {
			ID   textID `json:"id"`
			UUID textID `json:"uuid"`
		}
		_ = json.Unmarshal(raw, &head)
		return Conversation{}, ConversationError{Index: i, ID: first(string(head.ID), string(head.UUID)), Err: err}
	}
	if prev, ok := r.seen[c.ID]; ok {
		// One conversation's title on the other's messages, or its
		// messages refused as conflicts: the first is the one kept.
		return Conversation{}, ConversationError{Index: i, ID: c.ID, Err: fmt.Errorf("%w (index %d): only that one is imported", ErrDuplicateID, prev)}
	}
	if r.seen == nil {
		r.seen = map[string]int{}
	}
	if len(c.Messages) > 0 { // an empty copy does not claim the id from one with messages
		r.seen[c.ID] = i
	}
	r.Skipped.Hidden += sk.Hidden
	r.Skipped.Empty += sk.Empty
	r.Skipped.Branch += sk.Branch
	r.Skipped.Other += sk.Other
	r.Skipped.Unreadable += sk.Unreadable
	return c, nil
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

var errNoID = errors.New("no id")

// textID is an id as an export writes it: text, or a number, read as its
// digits (hand-made and some older exports write numbers).
type textID string

func (t *textID) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*t = textID(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return errors.New("an id is text or a number")
	}
	*t = textID(n.String())
	return nil
}

// unixTime reads a number of seconds since 1970 (ChatGPT's float seconds,
// Open WebUI's integers); milliseconds and nanoseconds are recognised by
// their size. Zero or less is no time.
func unixTime(v float64) time.Time {
	switch {
	case v <= 0 || v >= math.MaxInt64 || math.IsNaN(v): // 1e300 overflowed into 1677
		return time.Time{}
	case v > 1e17: // nanoseconds
		return time.Unix(0, int64(v))
	case v > 1e11: // milliseconds
		return time.UnixMilli(int64(v))
	}
	sec, frac := math.Modf(v)
	return time.Unix(int64(sec), int64(frac*1e9)).Truncate(time.Millisecond)
}

// fillTimes gives messages without a time the one before them (or the
// conversation's), so that the order holds.
func fillTimes(c *Conversation) {
	last := c.Created
	for i := range c.Messages {
		if c.Messages[i].Time.IsZero() {
			c.Messages[i].Time = last
		}
		last = c.Messages[i].Time
	}
	if c.Created.IsZero() && len(c.Messages) > 0 {
		c.Created = c.Messages[0].Time
	}
}

func first(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
