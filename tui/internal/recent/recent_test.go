package recent

import "testing"

// The list keeps the last size values put; taking one removes it, and an
// update changes it without making it the most recent.
func TestKeepsTheLastFew(t *testing.T) {
	l := New[int](2)
	l.Put("a", 1)
	l.Put("b", 2)
	l.Update("a", func(v *int) { *v = 10 })
	l.Put("c", 3) // a is the oldest still: it goes
	if _, ok := l.Take("a"); ok {
		t.Fatal("the oldest value was kept past the size")
	}
	if v, ok := l.Take("b"); !ok || v != 2 {
		t.Fatalf("b = %d, %v", v, ok)
	}
	if _, ok := l.Take("b"); ok {
		t.Fatal("a value taken was still there")
	}
	l.Update("gone", func(v *int) { *v = 1 })
	if _, ok := l.Take("gone"); ok {
		t.Fatal("an update made a value")
	}
	if v, ok := l.Take("c"); !ok || v != 3 {
		t.Fatalf("c = %d, %v", v, ok)
	}
}
