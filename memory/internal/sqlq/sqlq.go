// Package sqlq holds the small helpers the store, the index and sync use
// to build SQL: IN lists and quoted names.
package sqlq

import (
	"database/sql"
	"slices"
	"strings"
)

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

// InChunks runs query on ids in parts of at most MaxParams (for IN lists)
// and returns all the rows the parts return, in order.
func InChunks[T any](ids []string, query func(part []string) ([]T, error)) ([]T, error) {
	var out []T
	for part := range slices.Chunk(ids, MaxParams) {
		rows, err := query(part)
		if err != nil {
			return nil, err
		}
		out = append(out, rows...)
	}
	return out, nil
}

// In is "IN (?,…)" for n values.
func In(n int) string { return "IN (" + Placeholders(n) + ")" }

// ReadAll reads every row of rows as n values each, then closes rows, so
// that the values can be written on a connection the rows were holding.
func ReadAll(rows *sql.Rows, n int) ([][]any, error) {
	defer rows.Close()
	var out [][]any
	for rows.Next() {
		vals := make([]any, n)
		ptrs := make([]any, n)
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		out = append(out, vals)
	}
	return out, rows.Err()
}

// Strings reads rows of one text column, then closes rows.
func Strings(rows *sql.Rows, err error) ([]string, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// NullString is s as a query argument, NULL when it is empty.
func NullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// NullInt is v as a query argument, NULL when it is not valid.
func NullInt(valid bool, v int) any {
	if !valid {
		return nil
	}
	return v
}
