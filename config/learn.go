package config

import (
	"flag"
	"fmt"
)

// learnConfig is how memory builds itself (its keys sit at the top level
// of the config file): after each completed turn a model extracts the
// durable facts about the user and consolidates them with the notes
// (package learn).
type learnConfig struct {
	// MemoryReview is "auto" (learnt notes are kept at once, the default),
	// "inbox" (learnt notes wait for the user's approval) or "off"
	// (nothing is extracted).
	MemoryReview string `toml:"memory_review"`
	// ExtractModel extracts and consolidates (default: the chat model).
	ExtractModel string `toml:"extract_model"`
	// ModelChanges is "allow" (the model's memory_update and memory_delete
	// run at once, the default) or "confirm" (the chat asks the user
	// first; ask refuses them).
	ModelChanges string `toml:"model_changes"`
}

// Environment variables of learning.
const (
	envMemoryReview = "MNEME_MEMORY_REVIEW"
	envExtractModel = "MNEME_EXTRACT_MODEL"
	envModelChanges = "MNEME_MODEL_CHANGES"
)

// The values of model_changes.
const (
	changesAllow   = "allow"
	changesConfirm = "confirm"
)

// The values of memory_review.
const (
	ReviewAuto = "auto"
	ReviewOff  = "off"
	// ReviewInbox: learnt notes are pending until `memory approve`.
	ReviewInbox = "inbox"
)

// LearnFlags are the flags of the commands that learn (ask, chat).
type LearnFlags struct {
	noLearn bool
}

// Register registers --no-learn on fs.
func (f *LearnFlags) Register(fs *flag.FlagSet) {
	fs.BoolVar(&f.noLearn, "no-learn", false, "learn nothing from this conversation's turns (as memory_review = \"off\", env "+envMemoryReview+")")
}

// resolve applies flags, then the environment, over the file, fills the
// defaults and checks the values.
func (c *learnConfig) resolve(flags LearnFlags, l layers) {
	where := l.text("", "", envMemoryReview, "memory_review", &c.MemoryReview)
	l.modelName("", "", envExtractModel, "extract_model", &c.ExtractModel)
	switch c.MemoryReview { // checked even under --no-learn: a bad setting is said wherever it is
	case "":
		c.MemoryReview = ReviewAuto
	case ReviewAuto, ReviewInbox, ReviewOff:
	default:
		l.bad(fmt.Errorf("%s: %w: want %q, %q or %q", where, ErrConfigValue, ReviewAuto, ReviewInbox, ReviewOff))
		c.MemoryReview = ReviewAuto
	}
	if flags.noLearn {
		c.MemoryReview = ReviewOff
	}
	where = l.text("", "", envModelChanges, "model_changes", &c.ModelChanges)
	switch c.ModelChanges {
	case "":
		c.ModelChanges = changesAllow
	case changesAllow, changesConfirm:
	default:
		l.bad(fmt.Errorf("%s: %w: want %q or %q", where, ErrConfigValue, changesAllow, changesConfirm))
		c.ModelChanges = changesAllow
	}
}

// ConfirmChanges reports whether the model's changes and deletes of notes
// wait for the user's yes.
func (c learnConfig) ConfirmChanges() bool { return c.ModelChanges == changesConfirm }

// LearnOn reports whether turns are learnt from.
func (c learnConfig) LearnOn() bool {
	return c.MemoryReview == ReviewAuto || c.MemoryReview == ReviewInbox
}

// ReviewFirst reports whether learnt notes wait for the user's approval.
func (c learnConfig) ReviewFirst() bool { return c.MemoryReview == ReviewInbox }

// LearningLine says for doctor how turns answered by chatModel are learnt
// from: by which model, and whether what is learnt waits for review.
func (c learnConfig) LearningLine(chatModel string) string {
	if !c.LearnOn() {
		return `off (memory_review = "off")`
	}
	line := "from each turn, with the chat model"
	switch {
	case c.ExtractModel != "":
		line = "from each turn, with " + c.ExtractModel + " (extract_model)"
	case chatModel != "":
		line = "from each turn, with " + chatModel + " (the chat model)"
	}
	if c.ReviewFirst() {
		return line + "; new notes wait for your review (memory_review = \"inbox\")"
	}
	return line + "; new notes are kept at once"
}

// ExtractModelFor is the model that learns from turns answered by chatModel.
func (c learnConfig) ExtractModelFor(chatModel string) string {
	return first(c.ExtractModel, chatModel)
}
