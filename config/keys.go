package config

import (
	"reflect"
	"strings"
)

// fileKeys are the keys the config file takes, as TOML names them
// ("sync.url"): the toml tags of Config, its embedded parts' and tables'.
func fileKeys() []string {
	var keys []string
	var walk func(t reflect.Type, prefix string)
	walk = func(t reflect.Type, prefix string) {
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("toml")
			switch {
			case tag == "-":
			case f.Anonymous && tag == "":
				walk(f.Type, prefix)
			case f.Type.Kind() == reflect.Struct && tag != "":
				walk(f.Type, prefix+tag+".")
			case tag != "":
				keys = append(keys, prefix+tag)
			}
		}
	}
	walk(reflect.TypeFor[Config](), "")
	return keys
}

// nearestKey is the key the file takes that an unknown key is most likely
// a typo of (at most two letters changed, added, dropped or swapped), or "".
func nearestKey(unknown string) string {
	best, bestDist := "", 3
	for _, k := range fileKeys() {
		if diff := len(unknown) - len(k); diff > 2 || diff < -2 {
			continue // too far apart to be a typo (and a long key costs its length squared)
		}
		if d := editDistance(strings.ToLower(unknown), k); d < bestDist {
			best, bestDist = k, d
		}
	}
	return best
}

// editDistance is the optimal string alignment distance of a and b: the
// fewest letters changed, added, dropped or swapped with a neighbour.
func editDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}
