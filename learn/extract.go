package learn

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/internal/text"
)

// Model is the model learn asks and how.
type Model struct {
	Name string
	// Options are sent with every request (num_ctx, …); temperature is 0
	// and num_predict is bounded unless they say otherwise.
	Options map[string]any
	Log     *slog.Logger
}

// Turn is one exchange to learn from.
type Turn struct {
	User, Assistant string
}

// extractTokens bounds an extraction reply.
const extractTokens = 512

// turnRunes bounds each side of the turn sent for extraction.
const turnRunes = 4000

const extractInstructions = `You keep a memory of durable facts about the user, to personalise later conversations.
Read the conversation turn in the user message and list what it tells you about the user:
their facts (name, home, work, family, pets, health), preferences, plans, and the people in their life.
Rules:
- Only facts about the user that stay true for weeks or more. No chit-chat, no greetings,
  no facts about the world, no facts about the assistant, nothing the assistant merely suggested.
- Write each memory as one short sentence about the user, in the user's language, e.g. "Has a cat called Tom."
- confidence is how sure you are that the user stated it as true (0 to 1).
- tags are one to three lower-case topic words.
- kind is one of: fact, preference, plan, person, other.
- If the turn tells nothing durable about the user, return an empty list.`

// extractFormat is the JSON schema of an extraction reply.
var extractFormat = json.RawMessage(`{"type":"object","properties":{"memories":{"type":"array","items":{"type":"object",` +
	`"properties":{"text":{"type":"string"},"confidence":{"type":"number"},"tags":{"type":"array","items":{"type":"string"}},` +
	`"kind":{"type":"string","enum":["fact","preference","plan","person","other"]}},"required":["text","confidence","tags","kind"]}}},` +
	`"required":["memories"]}`)

// Extract asks the model for the durable memories about the user in turn.
// Candidates that break the rules (no text, too long, a confidence that is
// no number) are dropped with a log line, each alone; a reply that is not the schema's JSON
// is ErrMalformed.
func Extract(ctx context.Context, c ChatClient, m Model, turn Turn) ([]Candidate, error) {
	user := "User: " + text.Cut(turn.User, turnRunes) + "\nAssistant: " + text.Cut(turn.Assistant, turnRunes)
	var reply struct {
		Memories []json.RawMessage `json:"memories"`
	}
	if err := ask(ctx, c, m, extractInstructions, user, extractFormat, extractTokens, &reply); err != nil {
		return nil, err
	}
	var out []Candidate
	for _, raw := range reply.Memories {
		// One at a time: a memory the model wrote wrong ("confidence":
		// "0.9") is that memory dropped, not the others with it.
		cand, err := decodeCandidate(raw)
		if err != nil {
			logger(m).Info("extracted memory dropped", "why", err, "memory", text.Cut(string(raw), 120))
			continue
		}
		clean, why := validCandidate(cand)
		if why != "" {
			logger(m).Info("extracted memory dropped", "why", why, "text", text.Cut(cand.Text, 80))
			continue
		}
		if len(out) == MaxCandidates {
			logger(m).Info("extracted memories beyond the limit dropped", "limit", MaxCandidates, "returned", len(reply.Memories))
			break
		}
		out = append(out, clean)
	}
	return out, nil
}

// decodeCandidate reads one memory of an extraction; a confidence written
// as text ("0.9", "95%") is read as the number it says.
func decodeCandidate(raw json.RawMessage) (Candidate, error) {
	var w struct {
		Candidate
		Confidence any `json:"confidence"`
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		return Candidate{}, err
	}
	c := w.Candidate
	switch v := w.Confidence.(type) {
	case float64:
		c.Confidence = v
	case string:
		t := strings.TrimSpace(v)
		f, err := strconv.ParseFloat(strings.TrimSuffix(t, "%"), 64)
		if err != nil {
			return Candidate{}, fmt.Errorf("confidence %q is no number", v)
		}
		if strings.HasSuffix(t, "%") {
			f /= 100
		}
		c.Confidence = f
	case nil:
	default:
		return Candidate{}, fmt.Errorf("confidence %v is no number", v)
	}
	return c, nil
}

// validCandidate cleans a candidate, or says why it is not one.
func validCandidate(c Candidate) (Candidate, string) {
	c.Text = strings.Join(strings.Fields(c.Text), " ")
	switch n := utf8.RuneCountInString(c.Text); {
	case n == 0:
		return c, "no text"
	case n > MaxTextRunes:
		return c, fmt.Sprintf("text of %d characters", n)
	}
	// A confidence out of range (1.5, a percentage) is the model's wording,
	// not a reason to lose the fact.
	c.Confidence = min(max(c.Confidence, 0), 1)
	if !slices.Contains(kinds, c.Kind) {
		c.Kind = KindOther
	}
	var tags []string
	for _, t := range c.Tags {
		t = strings.ToLower(strings.Join(strings.Fields(t), "-"))
		if t == "" || utf8.RuneCountInString(t) > MaxTagRunes || slices.Contains(tags, t) {
			continue
		}
		if tags = append(tags, t); len(tags) == MaxTags {
			break
		}
	}
	c.Tags = tags
	return c, ""
}

// ask sends one structured request and decodes its reply into out.
func ask(ctx context.Context, c ChatClient, m Model, system, user string, format json.RawMessage, tokens int, out any) error {
	opts := map[string]any{"temperature": 0, "num_predict": tokens}
	maps.Copy(opts, m.Options)
	stream := false
	var reply strings.Builder
	err := c.Chat(ctx, &api.ChatRequest{
		Model:    m.Name,
		Messages: []api.Message{{Role: "system", Content: system}, {Role: "user", Content: user}},
		Stream:   &stream, Format: format, Options: opts,
	}, func(r api.ChatResponse) error {
		reply.WriteString(r.Message.Content)
		return nil
	})
	if err != nil {
		return err
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(reply.String())), out); err != nil {
		logger(m).Info("model reply is not the schema's JSON", "err", err, "reply", text.Cut(reply.String(), 200))
		return fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	return nil
}

func logger(m Model) *slog.Logger {
	if m.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return m.Log
}
