package keyword

import (
	"regexp"
	"strings"
)

// Answer types: what kind of information a question asks for, and which
// documents hold that kind of information.
const (
	typeTime = "time" // "when did ...": the document mentions a time ("yesterday", "last week", "in June")
)

// typer detects answer types in questions and documents.
type typer struct {
	timeExpr  *regexp.Regexp // a temporal expression in a document
	wantsTime *regexp.Regexp // a question about a time
}

func newTyper() *typer {
	months := "january|february|april|june|july|august|september|october|november|december|jan|feb|apr|jun|jul|aug|sep|sept|oct|nov|dec"
	days := "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
	units := "day|days|week|weeks|weekend|weekends|month|months|year|years|night|morning|afternoon|evening|summer|winter|spring|fall|autumn|" + days + "|" + months + "|may|march"
	return &typer{
		timeExpr: regexp.MustCompile(`(?i)\b(yesterday|today|tonight|tomorrow|ago|recently|lately|earlier|` +
			`(last|next|this|past|coming|other|few|couple)\s+(of\s+)?(` + units + `)|` +
			`(19|20)\d\d|` + months + `|` + days + `|` +
			`(may|march)\s+\d{1,2}|\d{1,2}(st|nd|rd|th)?\s+(of\s+)?(may|march))\b`),
		wantsTime: regexp.MustCompile(`(?i)^\s*when\b|\b(what|which)\s+(time|date|day|month|year|week)\b|\bhow\s+long\s+ago\b`),
	}
}

// docTypes lists the answer types a document's text can answer.
func (ty *typer) docTypes(text string) string {
	var out []string
	if ty.timeExpr.MatchString(text) {
		out = append(out, typeTime)
	}
	return strings.Join(out, " ")
}

// queryType is the answer type a question asks for, or "".
func (ty *typer) queryType(text string) string {
	if ty.wantsTime.MatchString(text) {
		return typeTime
	}
	return ""
}
