package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/fakeollama"
	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/internal/sanitize/hostile"
	"github.com/mneme-dev/mneme/memory"
)

// TestHostileTextNeverReachesTheTerminal feeds the same hostile payloads
// (CSI, OSC 52, OSC 0, OSC 8, DCS, C1, BS/CR, bidi) through every output
// of the binary: from the model (streamed and --json answers), from an
// imported file (titles and text in conversations, search, export), from
// notes, and from a hostile Ollama (version, model names, HTTP and
// mid-stream errors, the tools notice). No output may carry a control a
// terminal acts on, and each must still show the payload's readable text
// (a --json output, the payload itself, escaped).
func TestHostileTextNeverReachesTheTerminal(t *testing.T) {
	var raws []string
	models := fakeollama.DefaultModels()
	for _, p := range hostile.Payloads {
		raws = append(raws, p.Raw)
		models = append(models, fakeollama.Model{Name: "m-" + p.Raw, Capabilities: []string{"completion", "tools"}})
	}
	all := strings.Join(raws, " ")
	srv := fakeollama.New(t, fakeollama.WithVersion(all), fakeollama.WithModels(models...))
	d := newDevice(t, srv.Host())

	// An imported conversation per payload, its title holding a newline
	// and a forged row.
	var imp strings.Builder
	for i, p := range hostile.Payloads {
		conv := fmt.Sprintf("c%d", i)
		title := p.Raw + "\nffffffff-forged\t2 days ago\t99\tforged row"
		for _, rec := range []map[string]string{
			{"conversation": conv, "title": title, "role": "user", "content": "hostile question " + p.Raw},
			{"conversation": conv, "title": title, "role": "assistant", "content": "hostile answer " + p.Raw},
		} {
			b, _ := json.Marshal(rec)
			imp.Write(b)
			imp.WriteByte('\n')
		}
	}
	file := filepath.Join(t.TempDir(), "hostile.jsonl")
	if err := os.WriteFile(file, []byte(imp.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	d.mustOK("", "import", file)
	for _, p := range hostile.Payloads {
		d.mustOK("", "memory", "add", "hostile note "+p.Raw)
	}

	type output struct {
		name string
		text string
		json bool // the payloads must be there, escaped
		safe bool // only safe: what it shows of the payloads is not checked
	}
	var outs []output
	add := func(name string, text string) { outs = append(outs, output{name: name, text: text}) }
	addJSON := func(name string, text string) { outs = append(outs, output{name: name, text: text, json: true}) }

	srv.Script(fakeollama.Reply{Content: withNewlines(raws)})
	r := d.mustOK("", "ask", "tell me something hostile")
	add("ask streamed", r.stdout)
	outs = append(outs, output{name: "ask streamed, stderr", text: r.stderr, safe: true}) // what was recalled
	srv.Script(fakeollama.Reply{Content: withNewlines(raws)})
	addJSON("ask --json", d.mustOK("", "ask", "--json", "tell me something hostile").stdout)

	add("conversations", d.mustOK("", "conversations").stdout)
	addJSON("conversations --json", d.mustOK("", "conversations", "--json").stdout)
	add("search", d.mustOK("", "search", "--limit", "50", "hostile answer").stdout)
	addJSON("search --json", d.mustOK("", "search", "--json", "--limit", "50", "hostile answer").stdout)
	batch := d.mustOK(`{"id":1,"query":"hostile answer","limit":50}`+"\n", "search", "--batch", "-").stdout
	addJSON("search --batch", batch)
	add("memory list", d.mustOK("", "memory", "list").stdout)
	// A note is plain text: stored cleaned (memory.CheckNote), so its JSON
	// holds what the sanitiser shows, escaped.
	notesJSON := d.mustOK("", "memory", "list", "--json").stdout
	outs = append(outs, output{name: "memory list --json", text: notesJSON, safe: true})
	var notes []memory.Note
	if err := json.Unmarshal([]byte(notesJSON), &notes); err != nil {
		t.Fatal(err)
	}
	for _, p := range hostile.Payloads {
		want := strings.TrimSpace(sanitize.Text("hostile note " + p.Raw))
		if !slices.ContainsFunc(notes, func(n memory.Note) bool { return n.Content == want }) {
			t.Errorf("%s: no note stored as %q", p.Name, want)
		}
	}
	add("export markdown", d.mustOK("", "export", "--format", "markdown").stdout)
	add("doctor", d.mustOK("", "doctor").stdout)

	srv.Script(fakeollama.Reply{Status: http.StatusInternalServerError, Error: all})
	r = d.mneme("", "ask", "an error over HTTP")
	if r.code == 0 {
		t.Fatalf("ask with an HTTP error exited 0: %+v", r)
	}
	add("Ollama HTTP error", r.stderr)
	srv.Script(fakeollama.Reply{Content: []string{"partial "}, StreamError: all})
	r = d.mneme("", "ask", "an error mid-stream")
	if r.code == 0 {
		t.Fatalf("ask with a mid-stream error exited 0: %+v", r)
	}
	add("Ollama mid-stream error", r.stderr)

	// A model named with a payload (one the server lists) is refused where
	// it is given, named as typed, escaped: it would be printed in commands
	// to run (`ollama pull NAME`), where a cleaned name is another model.
	var refused strings.Builder
	for _, p := range hostile.Payloads {
		r := d.mneme("", "--model", "m-"+p.Raw, "ask", "tools?")
		if r.code != 2 || !strings.Contains(r.stderr, `--model "m-`) || !strings.Contains(r.stderr, "invalid value") {
			t.Fatalf("--model m-%q: %+v", p.Raw, r)
		}
		refused.WriteString(r.stderr)
	}
	outs = append(outs, output{name: "odd model names", text: refused.String(), safe: true})

	for _, o := range outs {
		t.Run(o.name, func(t *testing.T) {
			if bad := hostile.Unsafe(o.text); bad != "" {
				t.Fatalf("%s", bad)
			}
			for _, p := range hostile.Payloads {
				if o.safe {
					break
				}
				want := p.Readable
				if o.json {
					b, _ := json.Marshal(p.Raw)
					want = strings.Trim(string(sanitize.JSON(b)), `"`)
				}
				if !strings.Contains(o.text, want) {
					t.Errorf("%s: %q is not shown:\n%s", p.Name, want, o.text)
				}
				if p.Hidden != "" && !o.json && strings.Contains(o.text, p.Hidden) {
					t.Errorf("%s: the sequence's %q is shown:\n%s", p.Name, p.Hidden, o.text)
				}
			}
			if !o.json && strings.Contains(o.text, "\nffffffff-forged") {
				t.Errorf("an imported title forged a row:\n%s", o.text)
			}
		})
	}
}

func withNewlines(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = v + "\n"
	}
	return out
}
