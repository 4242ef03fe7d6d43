//
// PoolerRetry.h
//
// Library: BlueTusk/Transport
//
// ProtocolSession::againIfPooler(): a command that met the first sign of a transaction pooler
// (Server Pooling=auto, doc/poolers.md) before anything ran runs once more as the unnamed statement (the
// same command, or the one given for the retry).
//

#ifndef BlueTusk_Detail_PoolerRetry_INCLUDED
#define BlueTusk_Detail_PoolerRetry_INCLUDED

#include "ProtocolSession.h"

namespace BlueTusk {

template <typename Run, typename Again>
auto ProtocolSession::againIfPooler(Run&& run, Again&& again) -> decltype(run())
{
	const bool outside = _transactionStatus == TransactionStatus::Idle;
	try
	{
		return run();
	}
	catch (BlueTuskServerException& exc)
	{
		if (!noticeTransactionPooler(exc)) throw;
		if (!outside || _transactionStatus != TransactionStatus::Idle) throwPoolerInTransaction(exc);
		return again();   // the Parse or Bind of a statement named on another server session failed: nothing ran
	}
}


template <typename Run>
auto ProtocolSession::againIfPooler(Run&& run) -> decltype(run())
{
	return againIfPooler(run, run);
}

} // namespace BlueTusk

#endif // BlueTusk_Detail_PoolerRetry_INCLUDED
