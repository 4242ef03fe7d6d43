//
// StatementImpl.cpp
//
// Library: BlueTusk/Data
//

#include "StatementImpl.h"
#include "SessionImpl.h"
#include "TypeMap.h"
#include "Poco/Data/DataException.h"

namespace BlueTusk {
namespace Data {

StatementImpl::StatementImpl(SessionImpl& session):
	Poco::Data::StatementImpl(session),
	_session(session),
	_binder(new Binder),
	_extractor(new Extractor(_cursor))
{
	_cursor.result = &_result;
}


StatementImpl::~StatementImpl()
{
}


void StatementImpl::run(const std::function<void()>& action)
{
	try
	{
		action();
	}
	catch (Poco::Data::DataException&)
	{
		throw;
	}
	catch (Poco::Exception& exc)
	{
		_session.fail(exc, toString());
	}
}


std::size_t StatementImpl::columnsReturned() const
{
	return _columns.size();
}


int StatementImpl::affectedRowCount() const
{
	return static_cast<int>(_affected);
}


const Poco::Data::MetaColumn& StatementImpl::metaColumn(std::size_t pos) const
{
	if (pos >= _columns.size())
		throw Poco::Data::ExecutionException("column " + std::to_string(pos) + " does not exist; the statement has " +
			std::to_string(_columns.size()) + " columns (positions start at 0)");
	return _columns[pos];
}


bool StatementImpl::hasNext()
{
	if (_cursor.row < _result.rows.size()) return true;
	return _paged && nextPage();
}


bool StatementImpl::nextPage()
{
	if (_pageDone)
	{
		_paged = false;
		return false;
	}
	Session& session = _session.connection().session();
	if (session.fetchId() != _fetch || session.sessionId() != _fetchSession)
	{
		_paged = false;
		throw Poco::Data::ExecutionException("bluetusk: the rest of the paged result of \"" + toString() + "\" was dropped: another "
			"limited statement began on the same session, or the session was closed or reconnected since; page one statement at a "
			"time, or give each its own Session");
	}
	run([&] { _result = session.fetch(_pageRows); });
	_cursor.row = 0;
	_pageDone = !_result.commandTag.empty() || _result.rows.empty();
	if (!_result.commandTag.empty()) _affected = static_cast<Poco::Int64>(_result.rowsAffected());
	return !_result.rows.empty();
}


std::size_t StatementImpl::next()
{
	if (!hasNext()) throw Poco::Data::ExecutionException("bluetusk: no more rows to extract");
	std::size_t count = 1;
	std::size_t pos = 0;
	for (auto& extraction: extractions())
	{
		const std::size_t extracted = extraction->extract(pos);
		if (extraction->isBulk()) count = extracted;
		pos += extraction->numOfColumnsHandled();
	}
	_cursor.row += count;
	return count;
}


bool StatementImpl::canBind() const
{
	return !bindings().empty() && bindings().front()->canBind();
}


bool StatementImpl::canCompile() const
{
	return !_compiled;
}


void StatementImpl::compileImpl()
{
	// Poco compiles again on every re-execution: the statement is kept (and checked in ensurePrepared())
	_result = QueryResult();
	_cursor.row = 0;
	_queued.clear();
	_affected = 0;
	_paged = false;
	_pageDone = false;
	if (_compiled) return;
	ensurePrepared();
	_compiled = true;
}


void StatementImpl::ensurePrepared()
{
	// Read Your Writes: the standby must have replayed the token before the Parse/Describe, or a table
	// the writer just created is not there yet (42P01). catchUp() may move the session: take it after.
	if (!_simple) _session.catchUp();
	BlueTuskConnection& connection = _session.connection();
	Session& session = connection.session();
	if (_simple) return;
	if (_statement.isValid() && _statement.sessionId() == session.sessionId())
	{
		// A cached statement marked stale (the session ran DDL since): prepareCached() prepares it again
		// now, so that the columns and parameter types this execution uses are the table's as it is now.
		const bool stale = _statement.description()->cached && _statement.description()->needsReprepare;
		if (!stale) return;
	}
	try
	{
		_statement = session.prepareCached(toString());
	}
	catch (BlueTuskServerException& exc)
	{
		// Several statements in one string cannot be prepared (PostgreSQL docs, PREPARE): without
		// parameters they run with the simple query protocol instead, as psql would run them.
		if (exc.sessionUsable() && exc.sqlState() == "42601" && exc.fields().message.find("multiple commands") != std::string::npos &&
			bindings().empty())
		{
			_simple = true;
			_columns.clear();
			return;
		}
		_session.fail(exc, toString());
	}
	catch (Poco::Exception& exc)
	{
		_session.fail(exc, toString());
	}
	refreshColumns();
}


void StatementImpl::refreshColumns()
{
	const std::vector<ColumnDescription>& columns = _statement.columns();
	bool same = columns.size() == _columns.size();
	for (std::size_t i = 0; same && i < columns.size(); ++i)
		same = _columns[i].name() == columns[i].name && _columns[i].type() == TypeMap::columnType(columns[i].typeOid);
	if (same) return;
	_columns.clear();
	for (std::size_t i = 0; i < columns.size(); ++i)
	{
		const Poco::Data::MetaColumn::ColumnDataType type = TypeMap::columnType(columns[i].typeOid);
		_columns.emplace_back(i, columns[i].name, type, columns[i].typeSize > 0 ? columns[i].typeSize : 0, 0, true);
	}
}


void StatementImpl::bindImpl()
{
	_binder->reset();
	std::size_t pos = 0;
	for (auto& binding: bindings())
	{
		if (!binding->canBind()) break;
		binding->bind(pos);
		pos += binding->numOfColumnsHandled();
	}
	_session.beforeStatement();
	ensurePrepared();
	Session& session = _session.connection().session();
	_result = QueryResult();
	_cursor.row = 0;
	if (_simple)
	{
		run([&]
		{
			_affected = 0;
			for (const QueryResult& result: session.executeSimple(toString())) _affected += static_cast<Poco::Int64>(result.rowsAffected());
		});
		_session.afterStatement();
		return;
	}
	if (_binder->isBulk())
	{
		const std::vector<Parameters> rows = _binder->bulkRows();
		run([&] { _affected = static_cast<Poco::Int64>(session.executeBatch(_statement, rows)); });
		_session.afterStatement();
		return;
	}
	if (_columns.empty() && (canBind() || !_queued.empty()))
	{
		// use(vector) without rows to return: queue until the last row is bound, then one batch
		_queued.push_back(_binder->parameters());
		if (canBind()) return;
		std::vector<Parameters> rows;
		rows.swap(_queued);
		run([&] { _affected = static_cast<Poco::Int64>(session.executeBatch(_statement, rows)); });
		_session.afterStatement();
		return;
	}
	const Poco::Data::Limit::SizeT limit = getExtractionLimit();
	if (!_columns.empty() && limit != Poco::Data::Limit::LIMIT_UNLIMITED && limit > 0)
	{
		_pageRows = limit;
		run([&] { _result = session.beginFetch(_statement, _binder->parameters(), limit); });
		refreshColumns();
		_fetch = session.fetchId();
		_fetchSession = session.sessionId();
		_paged = true;
		_pageDone = !_result.commandTag.empty();
		_affected = 0;
		return;   // a paged read: its implicit transaction is open until the last page
	}
	run([&] { _result = session.execute(_statement, _binder->parameters()); });
	refreshColumns();   // prepared again during the execution (another session changed the table)
	_affected = static_cast<Poco::Int64>(_result.rowsAffected());
	_session.afterStatement();   // Read Your Writes: a write session's token (doc/poco-data.md)
}


Poco::Data::AbstractExtraction::ExtractorPtr StatementImpl::extractor()
{
	return _extractor;
}


Poco::Data::AbstractBinding::BinderPtr StatementImpl::binder()
{
	return _binder;
}

} } // namespace BlueTusk::Data
