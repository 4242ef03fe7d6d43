//
// OutcomeFaultSupport.h
//
// What the commit outcome and retry fault tests share: the fake old primary's answer to the capture query,
// the fake new primary's answer to pg_xact_status(), a crash that keeps the open session's answers, and
// small counters.
//

#ifndef BlueTusk_OutcomeFaultSupport_INCLUDED
#define BlueTusk_OutcomeFaultSupport_INCLUDED

#include "BlueTusk/BlueTuskException.h"
#include "Peers.h"
#include <algorithm>
#include <functional>
#include <string>
#include <vector>

namespace BlueTusk {
namespace Test {

inline QueryAnswer captureAnswer(const std::string& xid, const std::string& timeline = "00000001")
	/// CommitRecord::CAPTURE_SQL's row: xid, the WAL position 0/3000148, timeline.
{
	QueryAnswer answer;
	answer.columns = {"xid", "lsn", "timeline"};
	answer.rows = {{xid, std::string("0/3000148"), timeline}};
	return answer;
}


inline QueryAnswer statusAnswer(const std::string& status, const std::string& timeline = "00000001")
	/// StatusAnswer::STATUS_SQL's row: pg_xact_status() and the server's timeline.
{
	QueryAnswer answer;
	answer.columns = {"pg_xact_status", "substr"};
	answer.rows = {{status, timeline}};
	return answer;
}


inline void crash(FakeBackend& backend)
	/// New connections get 57P03 (the server is gone for routing); open sessions keep the script's answers.
{
	BackendScript down = BackendScript::startingUp();
	down.answers = backend.script().answers;
	backend.setScript(down);
}


inline long countOf(const std::vector<std::string>& queries, const std::string& statement)
{
	return static_cast<long>(std::count(queries.begin(), queries.end(), statement));
}


inline std::string sqlStateOf(const std::function<void()>& action)
	/// The SQLSTATE of the BlueTuskServerException action throws; "" when it throws none.
{
	try
	{
		action();
	}
	catch (BlueTuskServerException& exc)
	{
		return exc.sqlState();
	}
	return std::string();
}

} } // namespace BlueTusk::Test

#endif // BlueTusk_OutcomeFaultSupport_INCLUDED
