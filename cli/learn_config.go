package cli

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
	reviewAuto = "auto"
	reviewOff  = "off"
	// reviewInbox: learnt notes are pending until `memory approve`.
	reviewInbox = "inbox"
)

// learnFlags are the flags of the commands that learn (ask, chat).
type learnFlags struct {
	noLearn bool
}

func (f *learnFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&f.noLearn, "no-learn", false, "learn nothing from this conversation's turns (as memory_review = \"off\", env "+envMemoryReview+")")
}

// resolve applies flags, then the environment, over the file, fills the
// defaults and checks the values.
func (c *learnConfig) resolve(flags learnFlags, getenv func(string) string, file string) error {
	where := "config " + file + ": memory_review"
	switch {
	case flags.noLearn:
		c.MemoryReview, where = reviewOff, "--no-learn"
	case getenv(envMemoryReview) != "":
		c.MemoryReview, where = getenv(envMemoryReview), envMemoryReview
	}
	c.ExtractModel = first(getenv(envExtractModel), c.ExtractModel)
	switch c.MemoryReview {
	case "":
		c.MemoryReview = reviewAuto
	case reviewAuto, reviewInbox, reviewOff:
	default:
		return fmt.Errorf("%s = %q: want %q, %q or %q", where, c.MemoryReview, reviewAuto, reviewInbox, reviewOff)
	}
	where = "config " + file + ": model_changes"
	if v := getenv(envModelChanges); v != "" {
		c.ModelChanges, where = v, envModelChanges
	}
	switch c.ModelChanges {
	case "":
		c.ModelChanges = changesAllow
	case changesAllow, changesConfirm:
	default:
		return fmt.Errorf("%s = %q: %w: want %q or %q", where, c.ModelChanges, ErrConfigValue, changesAllow, changesConfirm)
	}
	return nil
}

// confirmChanges reports whether the model's changes and deletes of notes
// wait for the user's yes.
func (c learnConfig) confirmChanges() bool { return c.ModelChanges == changesConfirm }

// learnOn reports whether turns are learnt from.
func (c learnConfig) learnOn() bool {
	return c.MemoryReview == reviewAuto || c.MemoryReview == reviewInbox
}

// reviewFirst reports whether learnt notes wait for the user's approval.
func (c learnConfig) reviewFirst() bool { return c.MemoryReview == reviewInbox }

// extractModel is the model that learns from turns answered by chatModel.
func (c learnConfig) extractModel(chatModel string) string { return first(c.ExtractModel, chatModel) }
