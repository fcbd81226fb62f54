package importer

import (
	"archive/zip"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// An export saved with a UTF-8 byte order mark (as some Windows editors and
// tools write one) imports exactly as the same export without it: from the
// file, from its zip, from stdin, told from the content or named by --from;
// and the progress bar counts its conversations.
func TestAnExportWithAByteOrderMarkImportsAsWithout(t *testing.T) {
	bom := []byte{0xEF, 0xBB, 0xBF}
	for _, tc := range []struct {
		file   string
		format Format
	}{{"testdata/chatgpt.json", ChatGPT}, {"testdata/claude.json", Claude}, {"testdata/openwebui.json", OpenWebUI}} {
		data, err := os.ReadFile(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		plain := openStore(t)
		want, _ := importFile(t, plain, tc.file)
		wantText := transcript(t, plain)

		dir := t.TempDir()
		name := filepath.Join(dir, "conversations.json")
		if err := os.WriteFile(name, append(append([]byte{}, bom...), data...), 0o600); err != nil {
			t.Fatal(err)
		}
		zipName := filepath.Join(dir, "export.zip")
		writeZip(t, zipName, "conversations.json", append(append([]byte{}, bom...), data...))

		for _, way := range []struct {
			what string
			open func() (*Input, error)
		}{
			{"file, detected", func() (*Input, error) { return Open(name, "") }},
			{"file, --from", func() (*Input, error) { return Open(name, tc.format) }},
			{"zip", func() (*Input, error) { return Open(zipName, "") }},
			{"stdin", func() (*Input, error) {
				return OpenReader(bytes.NewReader(append(append([]byte{}, bom...), data...)), "")
			}},
		} {
			in, err := way.open()
			if err != nil {
				t.Fatalf("%s, %s: %v", tc.file, way.what, err)
			}
			r, err := NewReader(in)
			if err != nil {
				t.Fatal(err)
			}
			s := openStore(t)
			var fraction float64
			got, err := Run(context.Background(), s, user, r, Options{Progress: func(_ int, f float64) { fraction = f }})
			in.Close()
			if err != nil {
				t.Errorf("%s, %s: %v", tc.file, way.what, err)
				continue
			}
			if got.Format != tc.format || got.Stats.Imported != want.Stats.Imported || got.Conversations != want.Conversations {
				t.Errorf("%s, %s: %+v, want %+v", tc.file, way.what, got, want)
			}
			if text := transcript(t, s); !reflect.DeepEqual(text, wantText) {
				t.Errorf("%s, %s: %q, want %q", tc.file, way.what, text, wantText)
			}
			if way.what != "stdin" && fraction != 1 {
				t.Errorf("%s, %s: the bar ends at %v of the export, want all of it", tc.file, way.what, fraction)
			}
		}
		if got, want := CountConversations(name, ""), CountConversations(tc.file, ""); got != want || got < 1 {
			t.Errorf("%s: counted %d conversations with the mark, %d without", tc.file, got, want)
		}
	}
}

func writeZip(t *testing.T, name, file string, body []byte) {
	t.Helper()
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zw := zip.NewWriter(f)
	w, err := zw.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(body)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
}
