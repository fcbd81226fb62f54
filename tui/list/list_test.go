package list

import (
	"testing"

	tea "charm.land/bubbletea/v2"
)

func TestMoveScrollsAndStaysInside(t *testing.T) {
	l := New(DefaultKeyMap())
	for range 7 {
		l.Update(tea.KeyPressMsg{Code: tea.KeyDown}, 5, 3)
	}
	if l.Index() != 4 || l.Top() != 2 {
		t.Fatalf("sel %d top %d, want 4 2", l.Index(), l.Top())
	}
	l.Update(tea.KeyPressMsg{Code: tea.KeyPgUp}, 5, 3)
	if l.Index() != 1 || l.Top() != 1 {
		t.Fatalf("after a page up: sel %d top %d, want 1 1", l.Index(), l.Top())
	}
	l.Move(1, 0, 3) // an empty list does not move
	if l.Index() != 1 {
		t.Fatalf("moved in an empty list: %d", l.Index())
	}
	l.Clamp(0, 3)
	if l.Index() != 0 || l.Top() != 0 {
		t.Fatalf("clamped to nothing: sel %d top %d", l.Index(), l.Top())
	}
	if l.Update(tea.KeyPressMsg{Code: 'x', Text: "x"}, 5, 3) {
		t.Fatal("x handled")
	}
}

func TestRowsFromTheTop(t *testing.T) {
	l := New(DefaultKeyMap())
	l.Select(3)
	l.Scroll(2)
	var got []int
	l.Rows(10, 2, func(i int, sel bool) string {
		if sel != (i == 3) {
			t.Errorf("row %d selected %v", i, sel)
		}
		got = append(got, i)
		return ""
	})
	if len(got) != 2 || got[0] != 2 || got[1] != 3 {
		t.Fatalf("rows %v, want [2 3]", got)
	}
}
