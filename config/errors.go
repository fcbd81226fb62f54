package config

import (
	"errors"
	"fmt"
)

// ErrConfigValue is returned for a setting that is not a value it takes
// (out of its range, not a number, not a level), whether it
// came from a flag, the environment or the config file.
var ErrConfigValue = errors.New("invalid value")

// ErrConfigFile is returned for a config file that cannot be read as a
// whole (not TOML, a value of the wrong type, not readable).
var ErrConfigFile = errors.New("config file")

// ErrDataDir is returned for a data_dir that names no usable folder: a
// command that went on would read or make another memory.
// It says "invalid value", as ErrConfigValue, which it wraps.
var ErrDataDir = fmt.Errorf("%w", ErrConfigValue)
