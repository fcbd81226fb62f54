package tools

import "errors"

var (
	// ErrUnknownTool is returned for a call to a tool that is not registered.
	ErrUnknownTool = errors.New("unknown tool")
	// ErrInvalidArgs is returned when a call's arguments fail to decode or validate.
	ErrInvalidArgs = errors.New("invalid arguments")
	// ErrTimeout is returned when a tool runs past its timeout.
	ErrTimeout = errors.New("tool timed out")
	// ErrNoUser is returned when a call comes from a session with no user.
	ErrNoUser = errors.New("user identity required")
)
