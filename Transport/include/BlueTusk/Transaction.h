//
// Transaction.h
//
// Library: BlueTusk/Transport
//
// A scoped transaction with isolation level, read only and deferrable, and nested savepoints.
//

#ifndef BlueTusk_Transaction_INCLUDED
#define BlueTusk_Transaction_INCLUDED

#include "BlueTusk/Foundation.h"
#include "BlueTusk/CommitOutcome.h"
#include "BlueTusk/Session.h"
#include <memory>
#include <string>

namespace BlueTusk {

enum class IsolationLevel
	/// PostgreSQL's isolation levels (PostgreSQL docs 13.2); Default keeps the session's
	/// default_transaction_isolation (read committed unless configured).
{
	Default,
	ReadCommitted,
	RepeatableRead,
	Serializable
};


struct BlueTusk_Transport_API TransactionOptions
	/// The transaction modes of BEGIN (PostgreSQL docs, SQL command SET TRANSACTION).
{
	IsolationLevel isolation = IsolationLevel::Default;
	bool readOnly = false;     /// READ ONLY (else the session's default, READ WRITE unless configured)
	bool deferrable = false;   /// DEFERRABLE: only has an effect with Serializable and readOnly
	CommitOutcomeResolver::Ptr outcomeResolver = nullptr;
		/// Non-null: commit() resolves a lost answer (doc/outcomes.md). The COMMIT goes in one write behind
		/// CommitRecord::CAPTURE_SQL (the transaction id, the WAL position and the timeline; no round trip
		/// of its own), and when the connection breaks before COMMIT is answered the resolver asks a
		/// writable server what became of the transaction: commit() then returns (committed), or throws
		/// BlueTuskTransactionRolledBackException or BlueTuskCommitOutcomeUnknownException.
		/// BlueTuskDataSource::outcomeResolver() gives one that routes to the current primary.
	bool xidAtBegin = false;
		/// With an outcomeResolver and not readOnly: BEGIN travels with CommitRecord::BEGIN_CAPTURE_SQL in
		/// the same Query (no round trip of its own), so a transaction whose COMMIT packet got no answer at
		/// all (a frozen or killed server, not even the capture answered) still has its xid to resolve. Costs
		/// an xid for every such transaction, also one that writes nothing (PostgreSQL docs 9.27.5).

	std::string beginSql() const;
		/// "BEGIN", "BEGIN ISOLATION LEVEL SERIALIZABLE READ ONLY DEFERRABLE", ...
};


class BlueTusk_Transport_API Transaction
	/// A transaction block on one session, scoped:
	///
	///     Transaction tx(connection.session(), TransactionOptions{IsolationLevel::Serializable});
	///     connection.query("UPDATE accounts SET balance = balance - $1 WHERE id = $2", {amount, from});
	///     {
	///         Savepoint sp(tx);                 // nested work that may fail on its own
	///         ...
	///         sp.release();                     // or let it roll back to the savepoint
	///     }
	///     tx.commit();                          // else the destructor rolls back
	///
	/// The constructor sends BEGIN with the options (one round trip). commit() sends COMMIT; rollback()
	/// ROLLBACK. The destructor rolls back a transaction neither committed nor rolled back and never
	/// throws (a failure is logged; a pool rolls back what a returned session still has open, and
	/// discards a broken one). Whether a
	/// transaction is open is the session's transactionStatus(), from ReadyForQuery: after an error inside
	/// the block PostgreSQL rejects every statement with 25P02 until rollback (or a savepoint rollback).
	///
	/// Not thread-safe (like its session); the session must outlive the transaction. Move-only.
{
public:
	explicit Transaction(Session& session, const TransactionOptions& options = TransactionOptions());
		/// Begins the transaction. Throws BlueTuskUsageException when the session is already in a
		/// transaction block (PostgreSQL would only warn and keep the outer one), BlueTuskServerException
		/// or BlueTuskSessionBrokenException from BEGIN.

	Transaction(Session& session, IsolationLevel isolation, bool readOnly = false, bool deferrable = false);

	Transaction(Transaction&& other) noexcept;

	~Transaction();
		/// Rolls back unless committed or rolled back. Never throws.

	void commit();
		/// Sends COMMIT. Throws BlueTuskServerException with SQLSTATE 25P02 when the server rolled the
		/// transaction back instead (it had failed: COMMIT of a failed transaction answers ROLLBACK),
		/// 40001 for a serialization failure detected at commit, 23xxx for a deferred constraint; the
		/// transaction is over in every case. BlueTuskUsageException when it is not active.
		/// With an outcomeResolver (TransactionOptions), a connection lost before COMMIT's answer (EOF,
		/// reset, timeout, FATAL) does not throw BlueTuskSessionBrokenException but what the resolver found:
		/// nothing (the commit happened), BlueTuskTransactionRolledBackException (it did not, and will not:
		/// safe to run again) or BlueTuskCommitOutcomeUnknownException (no server could tell in time); each
		/// nests the connection failure. A session found broken before COMMIT was sent gives
		/// BlueTuskTransactionRolledBackException at once (the server ends an open transaction of a lost
		/// connection by rolling it back; PostgreSQL docs 55.2.11).

	static std::vector<QueryResult> executeWithOutcome(Session& session, const std::string& sql, CommitOutcomeResolver& resolver);
		/// An autocommit write whose outcome is resolved: sends "BEGIN; <sql>; <CAPTURE_SQL>" and "COMMIT" as
		/// two Query messages in one write (one round trip, as sql alone would be) and returns sql's results
		/// (one per statement). sql: one or more statements without transaction control, simple query
		/// protocol (no parameters). Throws as commit() does, and BlueTuskServerException from sql (rolled
		/// back), BlueTuskUsageException when the session is in a transaction block.

	void rollback();
		/// Sends ROLLBACK. BlueTuskUsageException when it is not active.

	bool isActive() const;
		/// True until commit() or rollback() was called (whatever the server's status).

	Session& session() const;

private:
	friend class Savepoint;

	Transaction(const Transaction&) = delete;
	Transaction& operator = (const Transaction&) = delete;
	Transaction& operator = (Transaction&&) = delete;

	void finish(const char* sql);

	Session* _session;
	CommitOutcomeResolver::Ptr _resolver;   /// TransactionOptions::outcomeResolver
	bool _serializable = false;
	std::unique_ptr<CommitRecord> _beginRecord;   /// TransactionOptions::xidAtBegin: the record taken with BEGIN
	bool _active = false;
	unsigned _savepoints = 0;   /// savepoints created so far (for their names)
};


class BlueTusk_Transport_API Savepoint
	/// A savepoint inside a Transaction (SAVEPOINT / RELEASE SAVEPOINT / ROLLBACK TO SAVEPOINT); they
	/// nest. rollback() undoes what was done since the savepoint and leaves the transaction usable (also
	/// after an error, which aborted the transaction up to here); the destructor does that unless
	/// release() or rollback() was called, and never throws. Not thread-safe; move-only.
{
public:
	explicit Savepoint(Transaction& transaction);
		/// Sends SAVEPOINT bluetusk_sp_<n>. Throws BlueTuskUsageException when the transaction is not active.

	Savepoint(Savepoint&& other) noexcept;

	~Savepoint();

	void release();
		/// RELEASE SAVEPOINT: keeps the work, merged into the enclosing transaction or savepoint.

	void rollback();
		/// ROLLBACK TO SAVEPOINT, then RELEASE SAVEPOINT, in one round trip.

	const std::string& name() const;

	bool isActive() const;

private:
	Savepoint(const Savepoint&) = delete;
	Savepoint& operator = (const Savepoint&) = delete;
	Savepoint& operator = (Savepoint&&) = delete;

	Transaction* _transaction;
	std::string _name;
	bool _active = false;
};

} // namespace BlueTusk

#endif // BlueTusk_Transaction_INCLUDED
