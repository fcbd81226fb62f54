// Package recent keeps the last few values put, by key: the oldest go once
// there are more than its size.
package recent

import "slices"

// List holds at most size values, most recently put last.
type List[V any] struct {
	size  int
	items map[string]V
	order []string
}

// New returns an empty list of at most size values.
func New[V any](size int) *List[V] {
	return &List[V]{size: size, items: map[string]V{}}
}

// Put keeps v under key as the most recent, dropping the oldest past size.
func (l *List[V]) Put(key string, v V) {
	l.Drop(key)
	l.items[key] = v
	l.order = append(l.order, key)
	for len(l.order) > l.size {
		delete(l.items, l.order[0])
		l.order = l.order[1:]
	}
}

// Take returns the value under key and drops it.
func (l *List[V]) Take(key string) (V, bool) {
	v, ok := l.items[key]
	l.Drop(key)
	return v, ok
}

// Drop forgets the value under key.
func (l *List[V]) Drop(key string) {
	delete(l.items, key)
	if i := slices.Index(l.order, key); i >= 0 {
		l.order = slices.Delete(l.order, i, i+1)
	}
}

// Update changes the value under key in place, if there is one, without
// making it more recent.
func (l *List[V]) Update(key string, change func(*V)) {
	if v, ok := l.items[key]; ok {
		change(&v)
		l.items[key] = v
	}
}
