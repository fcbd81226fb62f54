// Package mdexport writes conversations as Markdown, for people to read
// (`mneme export --format markdown`, the chat's /export); the store's own
// export (JSON lines) is what import reads back.
package mdexport

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/internal/text"
	"github.com/mneme-dev/mneme/memory"
)

// Source is what an export reads; *memory.Store has it.
type Source interface {
	EachExported(ctx context.Context, userID, conversationID string, fn func(c memory.Conversation, fileID string, msgs []memory.Message) error) error
}

// Export writes the user's conversations (or the one, when
// conversationID is set), oldest first, to w, a rule between two.
func Export(ctx context.Context, src Source, userID, conversationID string, w io.Writer) error {
	bw := bufio.NewWriter(w)
	first := true
	err := src.EachExported(ctx, userID, conversationID, func(c memory.Conversation, _ string, msgs []memory.Message) error {
		if !first {
			bw.WriteString("\n---\n\n")
		}
		first = false
		return write(bw, c, msgs)
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}

// write writes a conversation for people to read, often on a terminal:
// text is cleaned (sanitize.Text) and the title is one line.
func write(w *bufio.Writer, c memory.Conversation, msgs []memory.Message) error {
	title := cmp.Or(sanitize.Title(c.Title), "Untitled conversation")
	fmt.Fprintf(w, "# %s\n\n_%s · %s · %s_\n", title, c.Created.Format("2 January 2006 15:04"), text.Count(len(msgs), "message", "messages"), c.ID)
	for _, m := range msgs {
		switch m.Role {
		case memory.RoleUser:
			fmt.Fprintf(w, "\n## You\n\n%s\n", sanitize.Text(m.Content))
		case memory.RoleAssistant:
			// An answer stopped before its first word is its mark alone.
			var parts []string
			if m.Content != "" {
				parts = append(parts, sanitize.Text(m.Content))
			}
			for _, c := range m.ToolCalls {
				parts = append(parts, fmt.Sprintf("> tool call: `%s`", sanitize.Line(memory.ToolCallText(c))))
			}
			if m.Status == memory.StatusInterrupted {
				parts = append(parts, "_(interrupted)_")
			}
			fmt.Fprintf(w, "\n## Assistant\n\n%s\n", strings.Join(parts, "\n\n"))
		case memory.RoleTool:
			fmt.Fprintf(w, "\n> tool result (%s):\n>\n> %s\n", sanitize.Line(m.ToolName), strings.ReplaceAll(strings.TrimSpace(sanitize.Text(m.Content)), "\n", "\n> "))
		case memory.RoleSystem:
			fmt.Fprintf(w, "\n## System\n\n%s\n", sanitize.Text(m.Content))
		}
	}
	return nil
}
