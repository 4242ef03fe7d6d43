//
// StatementCache.h
//
// Library: BlueTusk/Transport
//
// The per-session cache of automatically prepared statements (Max Auto Prepare, Auto Prepare Min Usages).
//

#ifndef BlueTusk_StatementCache_INCLUDED
#define BlueTusk_StatementCache_INCLUDED

#include "BlueTusk/Foundation.h"
#include "BlueTusk/PreparedStatement.h"
#include "Poco/Types.h"
#include <list>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace BlueTusk {

class BlueTusk_Transport_API StatementCache
	/// Which SQL texts a session keeps prepared, as Npgsql's automatic preparation does: a text run
	/// through Session::query() is counted; once it has been run minUsages times it is prepared, and
	/// the maxPrepared most recently used prepared texts stay (least recently used beyond that are
	/// evicted, and the session closes them on the server). An entry is a SQL text together with the
	/// parameter types given in Parse (the natural types of the C++ values), so the same text run with
	/// other parameter types is another entry. Texts counted but not prepared yet are remembered up to
	/// a bound (4 x maxPrepared, at least 64), least recently used forgotten first.
	///
	/// Not thread-safe (owned by one session).
{
public:
	using DescriptionPtr = std::shared_ptr<PreparedStatement::Description>;

	StatementCache(std::size_t maxPrepared, std::size_t minUsages);
		/// maxPrepared 0 turns the cache off (find() never hits, use() never asks to prepare);
		/// minUsages below 1 counts as 1.

	DescriptionPtr find(const std::string& sql, const std::vector<Poco::UInt32>& parseTypes);
		/// The prepared statement for sql with these parse types, made the most recently used, or null.

	bool use(const std::string& sql, const std::vector<Poco::UInt32>& parseTypes);
		/// Counts one execution of a text that find() did not have; true when this execution should
		/// prepare it (the count reached minUsages).

	void insert(const DescriptionPtr& statement, std::vector<DescriptionPtr>& evicted);
		/// Adds a statement just prepared (its sql and parseTypes are the key) as the most recently used;
		/// appends the statements evicted to make room to evicted.

	void erase(const DescriptionPtr& statement);
		/// Forgets a statement (e.g. when preparing it again failed).

	void reset(std::size_t maxPrepared, std::size_t minUsages);
		/// Forgets everything and takes new limits (as the constructor).

	void clear();
		/// Forgets everything (the server's statements are gone, e.g. the session was reset with DISCARD ALL).

	std::size_t markStale();
		/// Marks every prepared statement as needing Parse again before its next use (needsReprepare),
		/// keeping its name and place: the session ran DDL or DISCARD ALL (doc/statements.md). Returns how
		/// many were marked.

	std::size_t size() const;
		/// Prepared statements held.

	std::size_t candidates() const;
		/// Texts counted but not prepared.

	std::vector<std::string> names() const;
		/// The server names of the prepared statements, most recently used first.

	std::size_t maxPrepared() const;
	std::size_t minUsages() const;

private:
	struct Entry
	{
		std::string sql;
		std::vector<Poco::UInt32> parseTypes;
		std::size_t usages = 0;
		DescriptionPtr statement;   /// null while only counted
	};
	using List = std::list<Entry>;

	List::iterator locate(List& list, const std::string& sql, const std::vector<Poco::UInt32>& parseTypes);
	void unindex(List::iterator it);

	std::size_t _maxPrepared;
	std::size_t _minUsages;
	std::size_t _maxCandidates;
	List _prepared;     /// most recently used first
	List _counted;      /// most recently used first
	std::unordered_multimap<std::string, List::iterator> _index;   /// sql -> entries of both lists
};

} // namespace BlueTusk

#endif // BlueTusk_StatementCache_INCLUDED
