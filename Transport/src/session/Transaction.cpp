//
// Transaction.cpp
//
// Library: BlueTusk/Transport
//

#include "BlueTusk/Transaction.h"
#include "ResolvedCommit.h"
#include "SessionSupport.h"

namespace BlueTusk {

namespace {

void quietly(Session& session, const std::string& sql, const char* what)
	/// Runs sql for a destructor: never throws; a failure is logged (a session that broke is discarded by
	/// its pool, and a pool rolls back whatever transaction a returned session still has open).
{
	try
	{
		if (!session.isBroken()) session.executeSimple(sql);
	}
	catch (Poco::Exception& exc)
	{
		Detail::transportLogger().warning("%s on %s failed: %s", std::string(what), session.endpoint().toString(), exc.displayText());
	}
	catch (...)
	{
		Detail::transportLogger().warning("%s on %s failed", std::string(what), session.endpoint().toString());
	}
}

} // namespace


std::string TransactionOptions::beginSql() const
{
	std::string sql = "BEGIN";
	switch (isolation)
	{
	case IsolationLevel::ReadCommitted: sql += " ISOLATION LEVEL READ COMMITTED"; break;
	case IsolationLevel::RepeatableRead: sql += " ISOLATION LEVEL REPEATABLE READ"; break;
	case IsolationLevel::Serializable: sql += " ISOLATION LEVEL SERIALIZABLE"; break;
	default: break;
	}
	if (readOnly) sql += " READ ONLY";
	if (deferrable) sql += " DEFERRABLE";
	return sql;
}


Transaction::Transaction(Session& session, const TransactionOptions& options):
	_session(&session),
	_resolver(options.outcomeResolver),
	_serializable(options.isolation == IsolationLevel::Serializable)
{
	if (session.transactionStatus() != TransactionStatus::Idle)
		throw BlueTuskUsageException("the session to " + session.endpoint().toString() +
			" is already in a transaction block; use a Savepoint for nested work");
	if (_resolver && options.xidAtBegin && !options.readOnly)
	{
		std::vector<QueryResult> results = session.executeSimple(options.beginSql() + "; " + CommitRecord::BEGIN_CAPTURE_SQL);
		_active = true;
		_beginRecord.reset(new CommitRecord(CommitRecord::fromCapture(session.endpoint(), results.back())));
		_beginRecord->takenAtBegin = true;
		return;
	}
	session.executeSimple(options.beginSql());
	_active = true;
}


Transaction::Transaction(Session& session, IsolationLevel isolation, bool readOnly, bool deferrable):
	Transaction(session, TransactionOptions{isolation, readOnly, deferrable})
{
}


Transaction::Transaction(Transaction&& other) noexcept:
	_session(other._session),
	_resolver(std::move(other._resolver)),
	_serializable(other._serializable),
	_beginRecord(std::move(other._beginRecord)),
	_active(other._active),
	_savepoints(other._savepoints)
{
	other._active = false;
}


Transaction::~Transaction()
{
	if (!_active) return;
	_active = false;
	if (_session->transactionStatus() != TransactionStatus::Idle) quietly(*_session, "ROLLBACK", "ROLLBACK of an unfinished transaction");
}


void Transaction::finish(const char* sql)
{
	if (!_active) throw BlueTuskUsageException(std::string("cannot ") + sql + ": the transaction is no longer active");
	_active = false;
	std::vector<QueryResult> results = _session->executeSimple(sql);
	if (std::string(sql) == "COMMIT") Detail::checkCommitAnswer(*_session, results);
}


void Transaction::commit()
{
	if (!_resolver)
	{
		finish("COMMIT");
		return;
	}
	if (!_active) throw BlueTuskUsageException("cannot COMMIT: the transaction is no longer active");
	_active = false;
	Detail::commitResolved(*_session, std::string(), _serializable, *_resolver, _beginRecord.get());
}


std::vector<QueryResult> Transaction::executeWithOutcome(Session& session, const std::string& sql, CommitOutcomeResolver& resolver)
{
	if (session.transactionStatus() != TransactionStatus::Idle)
		throw BlueTuskUsageException("the session to " + session.endpoint().toString() +
			" is already in a transaction block; an autocommit write with outcome resolution needs an idle session");
	std::vector<QueryResult> results = Detail::commitResolved(session, "BEGIN; " + sql + "; ", false, resolver, nullptr);
	// BEGIN's result first, the capture's last: the caller gets sql's own.
	if (results.size() >= 2) return std::vector<QueryResult>(std::make_move_iterator(results.begin() + 1), std::make_move_iterator(results.end() - 1));
	return {};
}


void Transaction::rollback()
{
	finish("ROLLBACK");
}


bool Transaction::isActive() const
{
	return _active;
}


Session& Transaction::session() const
{
	return *_session;
}


Savepoint::Savepoint(Transaction& transaction): _transaction(&transaction)
{
	if (!transaction.isActive()) throw BlueTuskUsageException("cannot create a savepoint: the transaction is no longer active");
	_name = "bluetusk_sp_" + std::to_string(++transaction._savepoints);
	transaction.session().executeSimple("SAVEPOINT " + _name);
	_active = true;
}


Savepoint::Savepoint(Savepoint&& other) noexcept:
	_transaction(other._transaction),
	_name(std::move(other._name)),
	_active(other._active)
{
	other._active = false;
}


Savepoint::~Savepoint()
{
	if (!_active) return;
	_active = false;
	if (_transaction->isActive() && _transaction->session().transactionStatus() != TransactionStatus::Idle)
		quietly(_transaction->session(), "ROLLBACK TO SAVEPOINT " + _name + "; RELEASE SAVEPOINT " + _name, "ROLLBACK TO SAVEPOINT");
}


void Savepoint::release()
{
	if (!_active) throw BlueTuskUsageException("savepoint " + _name + " is no longer active");
	_active = false;
	_transaction->session().executeSimple("RELEASE SAVEPOINT " + _name);
}


void Savepoint::rollback()
{
	if (!_active) throw BlueTuskUsageException("savepoint " + _name + " is no longer active");
	_active = false;
	_transaction->session().executeSimple("ROLLBACK TO SAVEPOINT " + _name + "; RELEASE SAVEPOINT " + _name);
}


const std::string& Savepoint::name() const
{
	return _name;
}


bool Savepoint::isActive() const
{
	return _active;
}

} // namespace BlueTusk
