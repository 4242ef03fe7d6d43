//
// StatementImpl.h
//
// Library: BlueTusk/Data
//
// A Poco::Data statement of the "bluetusk" connector: prepared through the session's statement cache.
//

#ifndef BlueTusk_Data_StatementImpl_INCLUDED
#define BlueTusk_Data_StatementImpl_INCLUDED

#include "BlueTusk/Foundation.h"
#include "Binder.h"
#include "Extractor.h"
#include "BlueTusk/PreparedStatement.h"
#include "Poco/Data/MetaColumn.h"
#include "Poco/Data/StatementImpl.h"
#include <functional>
#include <vector>

namespace BlueTusk {
namespace Data {

class SessionImpl;


class BlueTusk_Data_API StatementImpl: public Poco::Data::StatementImpl
	/// compileImpl() prepares the SQL through the session's statement cache (Session::prepareCached():
	/// Parse + Describe in one round trip the first time a text is seen on a physical session, no round
	/// trip after that), so the columns and their types (TypeMap) are known before anything is bound,
	/// as RecordSet needs. Placeholders are PostgreSQL's $1..$n, passed through unchanged.
	///
	/// Execution: one Bind/Execute/Sync per execution, binary results for the types BlueTusk decodes.
	/// use(vector) on a statement that returns no rows, and bulk binding (use(vector, bulk)), send every
	/// row pipelined in one batch (Session::executeBatch(): one implicit transaction, about one round
	/// trip per 256 rows). limit(n) (and bulk extraction, whose size is its limit) reads the result n rows
	/// at a time from a portal (Session::beginFetch(): Execute with a row limit), so a paged read holds at
	/// most n rows in the connector; the next execute() continues in the same result. Another statement on
	/// the same session in between makes the session read the rest ahead (correct, but no longer bounded);
	/// a second paged statement begun meanwhile ends the first one's result (ExecutionException when the
	/// first goes on). Without a limit the rows of one execution are held until extracted.
	/// Several statements in one string without parameters ("DROP ...; CREATE ...") cannot be prepared;
	/// they run with the simple query protocol instead (no rows are extracted from them).
	///
	/// Errors: BlueTusk::Data::StatementException with the SQLSTATE (see SessionImpl::fail()). Not
	/// thread-safe (like its session).
{
public:
	explicit StatementImpl(SessionImpl& session);
	~StatementImpl();

protected:
	std::size_t columnsReturned() const;
	int affectedRowCount() const;
	const Poco::Data::MetaColumn& metaColumn(std::size_t pos) const;
	bool hasNext();
	std::size_t next();
	bool canBind() const;
	bool canCompile() const;
	void compileImpl();
	void bindImpl();
	Poco::Data::AbstractExtraction::ExtractorPtr extractor();
	Poco::Data::AbstractBinding::BinderPtr binder();

private:
	void ensurePrepared();
		/// Prepares the statement through the session's statement cache, again when the session changed or
		/// the cached statement was marked stale (DDL since), and takes its columns.
	void refreshColumns();
		/// Rebuilds the MetaColumns when the statement's columns changed (it was prepared again).
	bool nextPage();
	void run(const std::function<void()>& action);

	SessionImpl& _session;
	PreparedStatement _statement;
	std::vector<Poco::Data::MetaColumn> _columns;
	bool _compiled = false;
	bool _simple = false;              /// several statements without parameters: the simple query protocol
	bool _paged = false;               /// limit(n): rows come n at a time from a portal (Session::beginFetch())
	bool _pageDone = false;            /// the last piece has come
	Poco::UInt64 _fetch = 0;           /// the session's fetchId() of this statement's portal
	Poco::UInt64 _fetchSession = 0;    /// and its sessionId(): a reconnect leads to another session
	std::size_t _pageRows = 0;
	QueryResult _result;
	ResultCursor _cursor;
	std::vector<Parameters> _queued;   /// use(vector) rows waiting for the last one (sent as one batch)
	Poco::Int64 _affected = 0;
	Binder::Ptr _binder;
	Extractor::Ptr _extractor;
};

} } // namespace BlueTusk::Data

#endif // BlueTusk_Data_StatementImpl_INCLUDED
