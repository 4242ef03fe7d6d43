//
// StandardTargetTable.h
//
// Plugin: BlueTuskTargetSessionPlugin
//
// The Accept / Fallback / Reject table of doc/routing.md.
//

#ifndef BlueTusk_StandardTargetTable_INCLUDED
#define BlueTusk_StandardTargetTable_INCLUDED

#include "BlueTusk/TargetSessionAttributes.h"
#include "BlueTusk/TargetSessionPolicy.h"

namespace BlueTusk {

RoleVerdict classifyStandardTarget(TargetSessionAttributes target, ServerRole role);
	/// | target         | Accept              | Fallback | Reject              |
	/// | any            | every role          | -        | -                   |
	/// | primary        | primary (rw or ro)  | -        | standby             |
	/// | standby        | standby             | -        | primary             |
	/// | prefer-primary | primary             | standby  | -                   |
	/// | prefer-standby | standby             | primary  | -                   |
	/// | read-write     | primary rw          | -        | primary ro, standby |
	/// | read-only      | primary ro, standby | -        | primary rw          |
	/// ServerRole::Unknown is rejected by every target but any.

} // namespace BlueTusk

#endif // BlueTusk_StandardTargetTable_INCLUDED
