//
// PoolerRefusals.h
//
// Library: BlueTusk/Transport
//
// What cannot work behind a transaction pooler (doc/poolers.md, "Refused behind a transaction pooler"): a
// scanner over a statement's SQL text that finds the features which assume that one server session serves
// the client from one transaction to the next.
//

#ifndef BlueTusk_Detail_PoolerRefusals_INCLUDED
#define BlueTusk_Detail_PoolerRefusals_INCLUDED

#include "BlueTusk/Foundation.h"
#include <string>

namespace BlueTusk {
namespace Detail {

struct PoolerRefusal
	/// A feature of a statement that a transaction pooler breaks, with the words of the refusal.
{
	std::string feature;   /// what was found: "LISTEN", "SET without LOCAL", ...; empty: nothing refused
	std::string reason;    /// why it cannot work behind a transaction pooler
	std::string instead;   /// what to use instead

	bool refused() const
	{
		return !feature.empty();
	}
};


BlueTusk_Transport_API PoolerRefusal findPoolerRefusal(const std::string& sql);
	/// Scans sql (one statement or several separated by ';') and returns the first feature refused behind a
	/// transaction pooler, or an empty PoolerRefusal. Refused: LISTEN; SET and SET SESSION without LOCAL
	/// (SET LOCAL, SET TRANSACTION, SET CONSTRAINTS and RESET are not); set_config(..., false); the
	/// session-level advisory locks pg_advisory_lock, pg_advisory_lock_shared, pg_try_advisory_lock,
	/// pg_try_advisory_lock_shared (the _xact_ ones are not); CREATE TEMP/TEMPORARY TABLE without ON COMMIT
	/// DROP, CREATE TEMP VIEW/SEQUENCE and SELECT ... INTO TEMP; DECLARE ... WITH HOLD; PREPARE (not PREPARE
	/// TRANSACTION). Comments (-- and
	/// nested /* */), string literals ('', E'', U&''), dollar-quoted strings ($$, $tag$) and quoted
	/// identifiers are skipped (a quoted identifier still names a function: "pg_advisory_lock"(1) is
	/// found), so a DO block's body is not looked into; CREATE [OR REPLACE] FUNCTION / PROCEDURE is never
	/// refused (its body, BEGIN ATOMIC ... END included, runs when called). Keywords are matched without
	/// regard to case. A text with none of the words a refusal needs costs one pass and no allocation.
	/// Thread-safe (no state); never throws but std::bad_alloc.

BlueTusk_Transport_API bool mayBeRefused(const std::string& sql);
	/// False when findPoolerRefusal(sql) is sure to find nothing: sql holds none of the words a refusal
	/// needs (listen, set, advisory, temp, hold, prepare, without regard to case, also inside longer
	/// words). One pass over the characters, no allocation. Thread-safe.

std::string poolerRefusalMessage(const PoolerRefusal& refusal, const std::string& endpoint, bool detected);
	/// The message of the BlueTuskUsageException that refuses it on a session to endpoint ("host:port"):
	/// "Server Pooling=transaction[ (Server Pooling=auto found the transaction pooler)]: <feature> cannot
	/// work behind a transaction pooler (server <endpoint>): <why>; <instead> (doc/poolers.md). Nothing was
	/// sent." (detected: Server Pooling=auto found the pooler). The endpoint appears once, as "server
	/// host:port", so the query paths' context (BlueTuskException::addContext) adds no second one. Contains
	/// no SQL text (it may hold secrets).

std::string startupParameterHint(const std::string& serverMessage);
	/// For a startup error whose message is a pooler's "unsupported startup parameter: ..." (PgBouncer
	/// refuses what is not in its ignore_startup_parameters): what BlueTusk sent it for (Options, Search Path)
	/// and what to do, to append to the message; "" for any other message.

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_PoolerRefusals_INCLUDED
