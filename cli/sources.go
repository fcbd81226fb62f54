package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/tools"
)

// citedSources are the passages the run's tool calls gave that the answer
// cites as [n], in the order of n, each once.
func citedSources(res agent.Result) []tools.Citation {
	seen := map[int]bool{}
	var out []tools.Citation
	for _, call := range res.ToolCalls {
		for _, c := range call.Citations {
			if !seen[c.N] && strings.Contains(res.Answer, fmt.Sprintf("[%d]", c.N)) {
				seen[c.N] = true
				out = append(out, c)
			}
		}
	}
	slices.SortFunc(out, func(a, b tools.Citation) int { return a.N - b.N })
	return out
}

// printSources lists the answer's cited sources under it: what [n] is.
func (p *askPrinter) printSources(res agent.Result) {
	cited := citedSources(res)
	if p.quiet || len(cited) == 0 {
		return
	}
	p.write("\nSources:\n")
	for _, c := range cited {
		p.write(fmt.Sprintf("  [%d] %s — %s\n", c.N, where(c.Title, c.Page, c.Heading), sanitize.Line(c.Path)))
	}
}
