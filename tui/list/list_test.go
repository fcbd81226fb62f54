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

// A window grown taller shows the items above the cursor that it hid,
// instead of empty rows below the last item.
func TestClampFillsAGrownWindow(t *testing.T) {
	m := New(DefaultKeyMap())
	m.Move(5, 6, 2) // the last of 6 items, 2 rows: items 4 and 5 show
	if m.Top() != 4 {
		t.Fatalf("top %d, want 4", m.Top())
	}
	m.Clamp(6, 5) // 5 rows now
	if m.Top() != 1 || m.Index() != 5 {
		t.Fatalf("top %d, index %d; want 1 and 5 (items 1-5 fill the window)", m.Top(), m.Index())
	}
	m.Clamp(6, 10)
	if m.Top() != 0 {
		t.Fatalf("top %d, want 0 when all fit", m.Top())
	}
}

// The selected item is drawn even when fewer rows are drawn than the
// window was scrolled for (the model picker's pull part grew under it).
func TestRowsKeepTheSelectedItem(t *testing.T) {
	m := New(DefaultKeyMap())
	m.Move(4, 6, 5) // item 4 of 6, 5 rows: items 0-4 show
	rows := m.Rows(6, 3, func(i int, sel bool) string {
		if sel {
			return "*"
		}
		return "-"
	})
	if len(rows) != 3 || rows[2] != "*" {
		t.Fatalf("rows %v: the selected item is not drawn", rows)
	}
}
