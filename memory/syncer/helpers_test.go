package syncer

import "github.com/mneme-dev/mneme/memory/index/indextest"

// chat stores one exchange in a new conversation of user (indextest.Chat).
var chat = indextest.Chat
