//
// Session.cpp
//
// Library: BlueTusk/Transport
//

#include "BlueTusk/Session.h"
#include "BlueTusk/BinaryCopyReader.h"
#include "Poco/Exception.h"

namespace BlueTusk {

Session::~Session()
{
}


namespace {

[[noreturn]] void unsupported(const char* what)
{
	throw BlueTuskUsageException(std::string(what) + " is not supported by this Session implementation");
}

} // namespace


void Session::executeSimpleSequence(const std::vector<std::string>& queries, std::vector<std::vector<QueryResult>>& answers)
{
	answers.clear();
	std::unique_ptr<BlueTuskServerException> error;
	for (const auto& sql: queries)
	{
		try
		{
			answers.push_back(executeSimple(sql));
		}
		catch (BlueTuskServerException& exc)
		{
			if (!exc.sessionUsable() || isBroken()) throw;
			if (!error) error.reset(new BlueTuskServerException(exc));
			answers.emplace_back();
		}
	}
	if (error) error->rethrow();
}


QueryResult Session::query(const std::string&, const Parameters&)
{
	unsupported("query()");
}


PreparedStatement Session::prepare(const std::string&, const std::vector<Poco::UInt32>&)
{
	unsupported("prepare()");
}


QueryResult Session::execute(const PreparedStatement&, const Parameters&)
{
	unsupported("execute(PreparedStatement)");
}


PreparedStatement Session::prepareCached(const std::string& sql)
{
	return prepare(sql);
}


Poco::UInt64 Session::executeBatch(const PreparedStatement& statement, const std::vector<Parameters>& rows)
{
	Poco::UInt64 affected = 0;
	for (const Parameters& row: rows) affected += execute(statement, row).rowsAffected();
	return affected;
}


QueryResult Session::beginFetch(const PreparedStatement& statement, const Parameters& parameters, std::size_t)
{
	return execute(statement, parameters);
}


QueryResult Session::fetch(std::size_t)
{
	return QueryResult();
}


bool Session::isFetching() const
{
	return false;
}


Poco::UInt64 Session::fetchId() const
{
	return 0;
}


void Session::endFetch()
{
}


Poco::UInt64 Session::queryEach(const std::string& sql, const Parameters& parameters, const std::function<bool(const RowView&)>& onRow)
{
	QueryResult result = query(sql, parameters);
	Poco::UInt64 delivered = 0;
	for (RowView row: result)
	{
		++delivered;
		if (!onRow(row)) break;
	}
	return delivered;
}


std::unique_ptr<CopyIn> Session::copyIn(const std::string&, const std::vector<Poco::UInt32>&)
{
	unsupported("copyIn()");
}


Poco::UInt64 Session::copyOutRows(const std::string& sql, const std::vector<Poco::UInt32>& columnTypes, const std::function<void(const RowView&)>& onRow)
{
	BinaryCopyReader reader(columnTypes, onRow);
	const Poco::UInt64 rows = copyOut(sql, [&](const char* data, std::size_t size) { reader.feed(data, size); });
	reader.finish();
	return rows;
}


Poco::UInt64 Session::copyOut(const std::string&, const std::function<void(const char*, std::size_t)>&)
{
	unsupported("copyOut()");
}


bool Session::waitForNotification(const Poco::Timespan&, Notification&)
{
	return false;
}


std::vector<Notification> Session::takeNotifications()
{
	return {};
}


Poco::UInt64 Session::notificationsDropped() const
{
	return 0;
}


std::vector<PipelineResult> Session::executePipeline(const std::vector<PipelineCommand>&)
{
	unsupported("executePipeline()");
}


void Session::unprepare(const PreparedStatement&)
{
	unsupported("unprepare()");
}


StatementStatistics Session::statementStatistics() const
{
	return StatementStatistics();
}


Poco::UInt64 Session::sessionId() const
{
	return 0;
}


void Session::setCommandTimeout(const Poco::Timespan&)
{
	throw Poco::NotImplementedException("this session has no command timeout");
}


Poco::Timespan Session::commandTimeout() const
{
	return Poco::Timespan(0);
}


void Session::setNoticeHandler(const NoticeHandler&)
{
	throw Poco::NotImplementedException("this session takes no notice handler");
}


bool Session::isTls() const
{
	return false;
}


int Session::protocolVersion() const
{
	return 0;
}


SessionFactory::~SessionFactory()
{
}

} // namespace BlueTusk
