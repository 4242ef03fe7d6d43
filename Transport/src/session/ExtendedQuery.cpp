//
// ExtendedQuery.cpp
//
// Library: BlueTusk/Transport
//
// Prepared statements, the statement cache and typed queries of a ProtocolSession (the extended query
// protocol, PostgreSQL docs 55.2.3): Parse + Describe + Sync in one round trip to prepare, Bind +
// Execute + Sync to run, Close in front of the next command to forget.
//

#include "ProtocolSession.h"
#include "SessionSupport.h"
#include "StatementInvalidation.h"
#include "PoolerDetection.h"
#include "PoolerRetry.h"

namespace BlueTusk {

namespace {

std::vector<Poco::UInt32> naturalTypes(const Parameters& parameters)
{
	std::vector<Poco::UInt32> types;
	types.reserve(parameters.size());
	for (const Parameter& parameter: parameters) types.push_back(parameter.naturalOid());
	return types;
}


const std::vector<Poco::Int16> TEXT_RESULTS;   // no format codes: every column in text

} // namespace


Poco::UInt64 ProtocolSession::sessionId() const
{
	return _sessionId;
}


void ProtocolSession::setTransactionPooling(bool on)
{
	if (on && !_transactionPooling)
	{
		_statementCache.reset(0, _statementCache.minUsages());   // forgotten, not closed: see the declaration
		_pendingCloses.clear();
	}
	_transactionPooling = on;
}


bool ProtocolSession::transactionPooling() const
{
	return _transactionPooling;
}


bool ProtocolSession::isUnnamed(const PreparedStatement::Description& statement) const
{
	return statement.unnamed || _transactionPooling;
}


const std::string& ProtocolSession::serverName(const PreparedStatement::Description& statement) const
{
	static const std::string UNNAMED;
	return isUnnamed(statement) ? UNNAMED : statement.name;
}


bool ProtocolSession::noticeTransactionPooler(const BlueTuskServerException& exc)
{
	if (!_autoPooling || _transactionPooling || _broken || !Detail::isTransactionPoolerSign(exc)) return false;
	if (peerIsServer()) return false;   // the application's own DEALLOCATE ALL or DISCARD ALL on the server itself
	setTransactionPooling(true);
	const std::string endpoint = _endpoint.toString();
	if (Detail::markTransactionPooler(endpoint))
	{
		Detail::transportLogger().warning("%s is behind a transaction pooler (%s, SQLSTATE %s): BlueTusk sends unnamed statements "
			"and no DISCARD ALL to it from now on; set Server Pooling=transaction in the connection string to start that way "
			"(doc/poolers.md)", endpoint, exc.fields().message, exc.sqlState());
	}
	_poolerGeneration = Detail::transactionPoolerGeneration();
	return true;
}


void ProtocolSession::followTransactionPoolers()
{
	const Poco::UInt64 generation = Detail::transactionPoolerGeneration();
	if (generation == _poolerGeneration) return;
	_poolerGeneration = generation;
	if (Detail::isTransactionPooler(_endpoint.toString())) setTransactionPooling(true);
}


void ProtocolSession::throwPoolerInTransaction(const BlueTuskServerException& exc)
{
	BlueTuskServerException::Fields fields = exc.fields();
	fields.message += "; " + _endpoint.toString() + " is behind a transaction pooler, where a prepared statement can land on "
		"another server session: BlueTusk sends unnamed statements from now on, but this one aborted the transaction "
		"block; roll back and run the transaction again (set Server Pooling=transaction to avoid this, doc/poolers.md)";
	throw BlueTuskServerException(fields, exc.sessionUsable());
}


void ProtocolSession::writeStatementBind(const PreparedStatement::Description& statement, const Parameters& parameters,
	const std::vector<Poco::Int16>& resultFormats)
{
	if (isUnnamed(statement)) _writer.parse(std::string(), statement.sql, statement.parameterTypes);
	_writer.bind(std::string(), serverName(statement), parameters, statement.parameterTypes, resultFormats);
}


void ProtocolSession::configureStatementCache(std::size_t maxAutoPrepare, std::size_t autoPrepareMinUsages)
{
	if (_transactionPooling) maxAutoPrepare = 0;
	for (const std::string& name: _statementCache.names()) _pendingCloses.push_back(name);
	_statementCache.reset(maxAutoPrepare, autoPrepareMinUsages);
}


const StatementCache& ProtocolSession::statementCache() const
{
	return _statementCache;
}


StatementStatistics ProtocolSession::statementStatistics() const
{
	return _statementStatistics;
}


void ProtocolSession::setStatementCounters(std::shared_ptr<StatementCounters> counters)
{
	_statementCounters = std::move(counters);
}


void ProtocolSession::countPrepared(bool again)
{
	++_statementStatistics.prepared;
	if (again) ++_statementStatistics.reprepared;
	if (_statementCounters)
	{
		_statementCounters->prepared.fetch_add(1, std::memory_order_relaxed);
		if (again) _statementCounters->reprepared.fetch_add(1, std::memory_order_relaxed);
	}
}


void ProtocolSession::writePendingCloses()
{
	for (const std::string& name: _pendingCloses) _writer.close('S', name);
	_closesInFlight.insert(_closesInFlight.end(), _pendingCloses.begin(), _pendingCloses.end());
	_pendingCloses.clear();
}


ProtocolSession::StatementPtr ProtocolSession::newStatement(const std::string& sql, const std::vector<Poco::UInt32>& parseTypes, bool cached)
{
	auto statement = std::make_shared<PreparedStatement::Description>();
	statement->name = Detail::statementName(_sessionId, ++_nextStatement);
	statement->sql = sql;
	statement->parseTypes = parseTypes;
	statement->sessionId = _sessionId;
	statement->cached = cached;
	statement->unnamed = _transactionPooling;
	return statement;
}


void ProtocolSession::describe(PreparedStatement::Description& statement, const QueryResult& description)
{
	statement.parameterTypes = _parameterDescription;
	statement.columns = description.columns;
	statement.resultFormats.clear();
	for (ColumnDescription& column: statement.columns)
	{
		column.formatCode = TypeOid::isBinaryDecodable(column.typeOid) ? 1 : 0;
		statement.resultFormats.push_back(column.formatCode);
	}
	statement.needsReprepare = false;
}


void ProtocolSession::parseAndDescribe(PreparedStatement::Description& statement, bool again)
{
	try
	{
		writePendingReset();
		writePendingCloses();
		if (again && !isUnnamed(statement)) _writer.close('S', statement.name);
		_writer.parse(serverName(statement), statement.sql, statement.parseTypes);
		_writer.describeStatement(serverName(statement));
		_writer.sync();
	}
	catch (...)
	{
		abandonWrite();
		throw;
	}
	_closesInFlight.clear();
	_parameterDescription.clear();
	std::vector<QueryResult> results = runCycle();
	describe(statement, results.empty() ? QueryResult() : results.front());
	countPrepared(again);
}


ProtocolSession::StatementPtr ProtocolSession::prepareNamed(const std::string& sql, const std::vector<Poco::UInt32>& parseTypes, bool cached)
{
	// Run again after the first sign of a transaction pooler: now as the unnamed statement.
	return againIfPooler([&]
	{
		ensureUsable();
		refuseBehindPooler(sql);
		StatementPtr statement = newStatement(sql, parseTypes, cached);
		parseAndDescribe(*statement, false);
		return statement;
	});
}


void ProtocolSession::admit(const StatementPtr& statement)
{
	std::vector<StatementPtr> evicted;
	_statementCache.insert(statement, evicted);
	for (const StatementPtr& old: evicted)
	{
		_pendingCloses.push_back(old->name);
		old->name.clear();   // its handles are invalid from now on
	}
	_statementStatistics.evictions += evicted.size();
	if (_statementCounters && !evicted.empty()) _statementCounters->evictions.fetch_add(evicted.size(), std::memory_order_relaxed);
}


PreparedStatement ProtocolSession::prepare(const std::string& sql, const std::vector<Poco::UInt32>& parameterTypes)
{
	StatementPtr statement = prepareNamed(sql, parameterTypes, false);
	++_explicitStatements;
	return PreparedStatement(statement);
}


PreparedStatement ProtocolSession::prepareCached(const std::string& sql)
{
	ensureUsable();
	static const std::vector<Poco::UInt32> INFERRED;
	if (StatementPtr cached = _statementCache.find(sql, INFERRED))
	{
		++_statementStatistics.cacheHits;
		if (_statementCounters) _statementCounters->cacheHits.fetch_add(1, std::memory_order_relaxed);
		if (cached->needsReprepare) reprepare(*cached);
		return PreparedStatement(cached);
	}
	if (_statementCache.maxPrepared() == 0) return prepare(sql);
	StatementPtr statement = prepareNamed(sql, INFERRED, true);
	if (isUnnamed(*statement)) return PreparedStatement(statement);   // found a transaction pooler: nothing to cache
	admit(statement);
	return PreparedStatement(statement);
}


void ProtocolSession::unprepare(const PreparedStatement& handle)
{
	const StatementPtr& statement = handle.description();
	if (!statement || statement->name.empty()) return;
	if (statement->sessionId != _sessionId)
		throw BlueTuskUsageException("prepared statement " + statement->name + " belongs to another session; it cannot be closed on " + where());
	if (!isUnnamed(*statement)) _pendingCloses.push_back(statement->name);
	statement->name.clear();
	if (statement->cached) _statementCache.erase(statement);
	else if (_explicitStatements > 0) --_explicitStatements;
}


void ProtocolSession::checkOwned(const StatementPtr& statement) const
{
	if (!statement) throw BlueTuskUsageException("the PreparedStatement handle is empty; obtain one from prepare()");
	if (statement->sessionId != _sessionId)
		throw BlueTuskUsageException("prepared statement " + (statement->name.empty() ? std::string("(closed)") : statement->name) +
			" was prepared on another session; prepare it on " + where() + " (a pooled lease may hand out a different session each checkout)");
	if (statement->name.empty())
		throw BlueTuskUsageException("the prepared statement for \"" + statement->sql + "\" was closed (unprepare() or evicted from the "
			"statement cache); prepare it again");
}


QueryResult ProtocolSession::execute(const PreparedStatement& handle, const Parameters& parameters)
{
	checkOwned(handle.description());
	return executeStatement(*handle.description(), parameters);
}


QueryResult ProtocolSession::executeStatement(PreparedStatement::Description& statement, const Parameters& parameters)
{
	ensureUsable();
	if (statement.needsReprepare)
	{
		// Marked stale (DDL or DISCARD ALL on this session, or an error of an earlier run). A statement
		// whose Parse types cover every value is prepared again in the same write as its run (no extra round
		// trip); one whose types the server infers must be described first, for the values to be encoded.
		if (statement.parseTypes.size() == parameters.size())
			return againIfPooler([&] { return parseAndRun(statement, parameters, true); });
		reprepare(statement);
		if (parameters.size() != statement.parameterTypes.size()) refuseParameterCount(statement, parameters);
		return runPrepared(statement, parameters);
	}
	if (parameters.size() != statement.parameterTypes.size()) refuseParameterCount(statement, parameters);
	return retryIfStale(statement, [&] { return runPrepared(statement, parameters); });
}


void ProtocolSession::refuseParameterCount(const PreparedStatement::Description& statement, const Parameters& parameters) const
{
	throw BlueTuskUsageException("the statement has " + std::to_string(statement.parameterTypes.size()) + " parameters but " +
			std::to_string(parameters.size()) + " values were given: \"" + statement.sql + "\"");
}


void ProtocolSession::noteSchemaChange(const std::string& commandTag)
{
	const std::size_t marked = _statementCache.markStale();
	if (marked > 0 && Detail::transportLogger().debug())
		Detail::transportLogger().debug("%s: \"%s\" may have changed what %z cached statements refer to; each is prepared again on its next use",
			where(), commandTag, marked);
}


void ProtocolSession::reprepare(PreparedStatement::Description& statement)
{
	// Behind a transaction pooler not found yet, the Parse may meet another client's statement of that name.
	againIfPooler([&] { parseAndDescribe(statement, true); });
}


QueryResult ProtocolSession::runPrepared(PreparedStatement::Description& statement, const Parameters& parameters)
{
	try
	{
		writePendingReset();
		writePendingCloses();
		writeStatementBind(statement, parameters, statement.resultFormats);
		_writer.executeUnnamed(false);   // Execute and Sync in one growth
	}
	catch (...)
	{
		abandonWrite();
		throw;
	}
	_closesInFlight.clear();
	return runCycleForOne(&statement.columns);
}


QueryResult ProtocolSession::query(const std::string& sql, const Parameters& parameters)
{
	ensureUsable();
	refuseBehindPooler(sql);
	const std::vector<Poco::UInt32> types = naturalTypes(parameters);
	if (StatementPtr cached = _statementCache.find(sql, types))
	{
		++_statementStatistics.cacheHits;
		if (_statementCounters) _statementCounters->cacheHits.fetch_add(1, std::memory_order_relaxed);
		return executeStatement(*cached, parameters);
	}
	if (_statementCache.use(sql, types))
	{
		return againIfPooler([&] { return prepareAndRun(newStatement(sql, types, true), parameters); },
			[&] { return runUnnamed(sql, parameters, types); });   // the Parse failed: nothing ran, nothing to cache
	}
	return runUnnamed(sql, parameters, types);
}


QueryResult ProtocolSession::prepareAndRun(const StatementPtr& statement, const Parameters& parameters)
{
	QueryResult result = parseAndRun(*statement, parameters, false);
	admit(statement);
	return result;
}


QueryResult ProtocolSession::parseAndRun(PreparedStatement::Description& statement, const Parameters& parameters, bool again)
{
	// Parse + Describe of the named statement, then its first execution, in one write: the rows of this
	// first run come in text (their formats had to be chosen before the RowDescription arrived).
	try
	{
		writePendingReset();
		writePendingCloses();
		if (again && !isUnnamed(statement)) _writer.close('S', statement.name);
		_writer.parse(serverName(statement), statement.sql, statement.parseTypes);
		_writer.describeStatement(serverName(statement));
		_writer.bind(std::string(), serverName(statement), parameters, statement.parseTypes, TEXT_RESULTS);
		_writer.execute(std::string(), 0);
		_writer.sync();
	}
	catch (...)
	{
		abandonWrite();
		throw;
	}
	_closesInFlight.clear();
	_parameterDescription.clear();
	std::vector<QueryResult> results;
	try
	{
		results = runCycle();
	}
	catch (BlueTuskServerException&)
	{
		// The Parse may have failed (nothing prepared) or the execution (the statement exists). A new
		// statement's name is closed in front of the next command (its text is counted afresh); a stale
		// one stays marked and sends its Close with its next Parse.
		if (!again && !_broken && !isUnnamed(statement)) _pendingCloses.push_back(statement.name);
		throw;
	}
	QueryResult description;
	if (!results.empty()) description.columns = results.front().columns;
	describe(statement, description);
	countPrepared(again);
	if (results.empty()) return QueryResult();
	return std::move(results.front());
}


QueryResult ProtocolSession::runUnnamed(const std::string& sql, const Parameters& parameters, const std::vector<Poco::UInt32>& types)
{
	try
	{
		writePendingReset();
		writePendingCloses();
		_writer.parse(std::string(), sql, types);
		_writer.bind(std::string(), std::string(), parameters, types, TEXT_RESULTS);
		_writer.executeUnnamed(true);   // Describe, Execute and Sync in one growth
	}
	catch (...)
	{
		abandonWrite();
		throw;
	}
	_closesInFlight.clear();
	return runCycleForOne();
}

} // namespace BlueTusk
