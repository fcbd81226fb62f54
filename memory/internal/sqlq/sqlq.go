// Package sqlq holds the small helpers the store, the index and sync use
// to build SQL: IN lists and quoted names.
package sqlq

import "strings"

// MaxParams keeps IN lists well under SQLite's variable limit.
const MaxParams = 500

// Placeholders is n comma-separated "?".
func Placeholders(n int) string { return strings.TrimSuffix(strings.Repeat("?,", n), ",") }

// Args converts xs to query arguments.
func Args[T any](xs []T) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

// Ident quotes a table or column name.
func Ident(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// Text quotes a string literal.
func Text(s string) string { return `'` + strings.ReplaceAll(s, `'`, `''`) + `'` }
