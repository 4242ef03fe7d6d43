//
// TransactionPoolerGuard.cpp
//
// Library: BlueTusk/Transport
//
// A session in transaction pooling (Server Pooling=transaction, or auto once the pooler was found) refuses
// the statements that assume one server session from one transaction to the next, and a pipeline that met
// the first sign of a transaction pooler runs again when nothing of it stayed done (doc/poolers.md).
//

#include "ProtocolSession.h"
#include "PoolerRefusals.h"
#include "BlueTusk/Pipeline.h"
#include <algorithm>

namespace BlueTusk {

namespace {

const std::size_t MAX_REMEMBERED_TEXT = 65536;   // a longer text is scanned each time rather than kept twice


bool endsTransaction(const std::string& commandTag)
	/// COMMIT (also END's tag), ROLLBACK (also ABORT's), PREPARE TRANSACTION, COMMIT PREPARED, ...
{
	return commandTag.compare(0, 6, "COMMIT") == 0 || commandTag.compare(0, 8, "ROLLBACK") == 0 ||
		commandTag.compare(0, 7, "PREPARE") == 0;
}

} // namespace


void ProtocolSession::refuseBehindPooler(const std::string& sql) const
{
	// Every statement in transaction pooling comes here: the text just allowed again costs a comparison,
	// one without the words a refusal needs a pass over its characters, and only the rest the lexer
	// (doc/performance.md, row 13f).
	if (!_transactionPooling || sql == _allowedBehindPooler) return;
	if (Detail::mayBeRefused(sql))
	{
		const Detail::PoolerRefusal refusal = Detail::findPoolerRefusal(sql);
		if (refusal.refused()) throw BlueTuskUsageException(Detail::poolerRefusalMessage(refusal, _endpoint.toString(), _autoPooling));
	}
	if (sql.size() <= MAX_REMEMBERED_TEXT) _allowedBehindPooler = sql;
}


bool ProtocolSession::pipelineMetPooler(const std::vector<PipelineCommand>& commands, std::vector<PipelineResult>& results, bool outside)
{
	auto failed = std::find_if(results.begin(), results.end(),
		[](const PipelineResult& result) { return result.status == PipelineResult::Status::Failed; });
	if (failed == results.end() || !failed->error || !noticeTransactionPooler(*failed->error)) return false;
	// Run again only when everything that ran was one implicit transaction, rolled back by the error: one
	// segment (no sync point but the last), outside a transaction block, and nothing before the failure
	// that ended a transaction.
	if (!outside || _transactionStatus != TransactionStatus::Idle)
	{
		try
		{
			throwPoolerInTransaction(*failed->error);   // the error, saying what happened and what to do
		}
		catch (BlueTuskServerException& exc)
		{
			failed->error = std::make_shared<BlueTuskServerException>(exc);
		}
		return false;
	}
	bool again = true;
	for (std::size_t i = 0; again && i + 1 < commands.size(); ++i) again = !commands[i].isSync;
	for (auto result = results.begin(); again && result != failed; ++result) again = !endsTransaction(result->result.commandTag);
	if (again) return true;
	BlueTuskServerException::Fields fields = failed->error->fields();
	fields.message += "; " + _endpoint.toString() + " is behind a transaction pooler, where a prepared statement can land on "
		"another server session: BlueTusk sends unnamed statements from now on, but other parts of this pipeline (its later "
		"segments, or a transaction it ended) stay done, so it was not run again; run what failed again (set "
		"Server Pooling=transaction to avoid this, doc/poolers.md)";
	failed->error = std::make_shared<BlueTuskServerException>(fields, failed->error->sessionUsable());
	return false;
}

} // namespace BlueTusk
