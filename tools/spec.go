package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/memory"
)

// ParamType is the JSON type of a tool argument.
type ParamType string

// Argument types.
const (
	String  ParamType = "string"
	Integer ParamType = "integer"
	Boolean ParamType = "boolean"
)

// Param describes one argument for the model. Ranges and lengths go in the
// description: Ollama's tool schema has no fields for them.
type Param struct {
	Name        string
	Type        ParamType
	Description string
	Required    bool
}

// Spec describes a tool: what the model is told about it, how safe it is,
// and how long it may run.
type Spec struct {
	Name        string
	Description string // markdown, embedded from a .md file beside the tool
	Params      []Param
	Tier        Tier
	Timeout     time.Duration
}

// Definition renders the spec as the tool definition sent to Ollama.
func (s Spec) Definition() api.Tool {
	props := api.NewToolPropertiesMap()
	var required []string
	for _, p := range s.Params {
		props.Set(p.Name, api.ToolProperty{Type: api.PropertyType{string(p.Type)}, Description: p.Description})
		if p.Required {
			required = append(required, p.Name)
		}
	}
	return api.Tool{Type: "function", Function: api.ToolFunction{
		Name:        s.Name,
		Description: strings.TrimSpace(s.Description),
		Parameters:  api.ToolFunctionParameters{Type: "object", Required: required, Properties: props},
	}}
}

// Args is a tool's typed arguments: once decoded they check themselves
// (lengths, ranges) and say what is wrong.
type Args interface {
	Validate() error
}

// New makes a Tool from a spec and a function of typed arguments. A call's
// arguments are decoded strictly into A, then validated; any problem (not
// a JSON object, invalid UTF-8, a missing required field, an unknown field,
// a wrong type, a failed Validate) is an error wrapping ErrInvalidArgs that
// names the field. run's result is sent to the model as JSON; the notes a
// NoteOut names go in the Result too.
func New[A Args](spec Spec, run func(ctx context.Context, s Session, args A) (any, error)) Tool {
	return &typedTool[A]{spec: spec, run: run}
}

type typedTool[A Args] struct {
	spec Spec
	run  func(ctx context.Context, s Session, args A) (any, error)
}

func (t *typedTool[A]) Definition() api.Tool   { return t.spec.Definition() }
func (t *typedTool[A]) Tier() Tier             { return t.spec.Tier }
func (t *typedTool[A]) Timeout() time.Duration { return t.spec.Timeout }

func (t *typedTool[A]) Run(ctx context.Context, s Session, raw json.RawMessage) (Result, error) {
	args, err := decodeArgs[A](t.spec, raw)
	if err != nil {
		return Result{}, err
	}
	out, err := t.run(ctx, s, args)
	if err != nil {
		return Result{}, err
	}
	b, err := json.Marshal(out)
	if err != nil {
		return Result{}, fmt.Errorf("%s: encode result: %w", t.spec.Name, err)
	}
	res := Result{Content: string(b)}
	if c, ok := out.(noteChanger); ok {
		res.Notes, res.Mark = c.changedNotes(), memory.NewID()
	}
	if c, ok := out.(citer); ok {
		res.Citations = c.cited()
	}
	return res, nil
}

// decodeArgs decodes and validates a call's arguments.
func decodeArgs[A Args](spec Spec, raw json.RawMessage) (A, error) {
	var args A
	invalid := func(format string, a ...any) (A, error) {
		return args, fmt.Errorf("%w: %s", ErrInvalidArgs, fmt.Sprintf(format, a...))
	}
	if !utf8.Valid(raw) {
		return invalid("the arguments are not valid UTF-8")
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = []byte("{}")
	}
	var fields map[string]json.RawMessage
	first := json.NewDecoder(bytes.NewReader(raw))
	if err := first.Decode(&fields); err != nil {
		return invalid("the arguments must be a JSON object like %s", example(spec))
	}
	if _, err := first.Token(); err != io.EOF {
		return invalid("unexpected data after the arguments object")
	}
	for _, p := range spec.Params {
		if v, ok := fields[p.Name]; p.Required && (!ok || bytes.Equal(v, []byte("null"))) {
			return invalid("missing required field %q", p.Name)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&args); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return invalid("field %q must be %s", te.Field, typeName(spec, te.Field))
		}
		if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return invalid("unknown field %s; the fields are %s", name, fieldNames(spec))
		}
		return invalid("%s", strings.TrimPrefix(err.Error(), "json: "))
	}
	if err := args.Validate(); err != nil {
		return invalid("%v", err)
	}
	return args, nil
}

func typeName(spec Spec, field string) string {
	for _, p := range spec.Params {
		if p.Name == field {
			switch p.Type {
			case Integer:
				return "a whole number"
			case Boolean:
				return "true or false"
			}
			return "a string"
		}
	}
	return "of another type"
}

func fieldNames(spec Spec) string {
	names := make([]string, len(spec.Params))
	for i, p := range spec.Params {
		names[i] = fmt.Sprintf("%q", p.Name)
	}
	return strings.Join(names, ", ")
}

// example renders the required fields as a JSON object, for error messages.
func example(spec Spec) string {
	var parts []string
	for _, p := range spec.Params {
		if !p.Required {
			continue
		}
		v := `"..."`
		switch p.Type {
		case Integer:
			v = "5"
		case Boolean:
			v = "false"
		}
		parts = append(parts, fmt.Sprintf("%q: %s", p.Name, v))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// checkText checks a text argument's length in characters, surrounding
// space trimmed.
func checkText(field, s string, minRunes, maxRunes int) error {
	n := utf8.RuneCountInString(strings.TrimSpace(s))
	switch {
	case n < minRunes && n == 0:
		return fmt.Errorf("%q must not be empty", field)
	case n < minRunes || n > maxRunes:
		return fmt.Errorf("%q is %d characters; it must be %d-%d", field, n, minRunes, maxRunes)
	}
	return nil
}

// searchSpec is a read-only search tool's spec: its query, then its count
// of results and any more params.
func searchSpec(name, doc string, params ...Param) Spec {
	return Spec{Name: name, Description: doc, Tier: ReadOnly, Timeout: SearchTimeout, Params: append([]Param{queryParam()}, params...)}
}

// queryParam is a search tool's query.
func queryParam() Param {
	return Param{Name: "query", Type: String, Required: true,
		Description: fmt.Sprintf("What you are looking for, as a natural-language sentence (1-%d characters).", MaxQueryRunes)}
}

// countParam is a search tool's count of results, of what.
func countParam(name, what string) Param {
	return Param{Name: name, Type: Integer,
		Description: fmt.Sprintf("How many %s to return (1-%d, default %d).", what, MaxTopK, DefaultTopK)}
}

// checkQuery checks a search's query and its optional count of results
// (named countField), 1 to MaxTopK.
func checkQuery(query, countField string, count *int) error {
	if err := checkText("query", query, 1, MaxQueryRunes); err != nil {
		return err
	}
	return checkRange(countField, count, 1, MaxTopK)
}

// checkRange checks an optional whole-number argument.
func checkRange(field string, v *int, lo, hi int) error {
	if v != nil && (*v < lo || *v > hi) {
		return fmt.Errorf("%q is %d; it must be %d-%d", field, *v, lo, hi)
	}
	return nil
}

// orDefault is *v, or def when the argument was left out.
func orDefault[T any](v *T, def T) T {
	if v == nil {
		return def
	}
	return *v
}
