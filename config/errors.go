package config

import "errors"

// ErrConfigValue is returned for a setting that is not a value it takes
// (out of its range, not a number, not a level), whether it
// came from a flag, the environment or the config file.
var ErrConfigValue = errors.New("invalid value")

// ErrConfigFile is returned for a config file that cannot be read as a
// whole (not TOML, a value of the wrong type, not readable).
var ErrConfigFile = errors.New("config file")
