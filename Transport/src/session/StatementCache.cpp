//
// StatementCache.cpp
//
// Library: BlueTusk/Transport
//

#include "StatementCache.h"
#include <algorithm>

namespace BlueTusk {

StatementCache::StatementCache(std::size_t maxPrepared, std::size_t minUsages):
	_maxPrepared(maxPrepared),
	_minUsages(std::max<std::size_t>(minUsages, 1)),
	_maxCandidates(std::max<std::size_t>(maxPrepared * 4, 64))
{
}


StatementCache::List::iterator StatementCache::locate(List& list, const std::string& sql, const std::vector<Poco::UInt32>& parseTypes)
{
	auto range = _index.equal_range(sql);
	for (auto it = range.first; it != range.second; ++it)
	{
		List::iterator entry = it->second;
		if (entry->parseTypes != parseTypes) continue;
		const bool inList = &list == &_prepared ? entry->statement != nullptr : entry->statement == nullptr;
		if (inList) return entry;
	}
	return list.end();
}


void StatementCache::unindex(List::iterator entry)
{
	auto range = _index.equal_range(entry->sql);
	for (auto it = range.first; it != range.second; ++it)
	{
		if (it->second == entry)
		{
			_index.erase(it);
			return;
		}
	}
}


StatementCache::DescriptionPtr StatementCache::find(const std::string& sql, const std::vector<Poco::UInt32>& parseTypes)
{
	if (_maxPrepared == 0 || _prepared.empty()) return nullptr;
	List::iterator entry = locate(_prepared, sql, parseTypes);
	if (entry == _prepared.end()) return nullptr;
	if (entry != _prepared.begin()) _prepared.splice(_prepared.begin(), _prepared, entry);
	return entry->statement;
}


bool StatementCache::use(const std::string& sql, const std::vector<Poco::UInt32>& parseTypes)
{
	if (_maxPrepared == 0) return false;
	List::iterator entry = locate(_counted, sql, parseTypes);
	if (entry == _counted.end())
	{
		_counted.push_front(Entry{sql, parseTypes, 0, nullptr});
		entry = _counted.begin();
		_index.emplace(sql, entry);
		if (_counted.size() > _maxCandidates)
		{
			unindex(std::prev(_counted.end()));
			_counted.pop_back();
		}
	}
	else if (entry != _counted.begin())
	{
		_counted.splice(_counted.begin(), _counted, entry);
	}
	return ++entry->usages >= _minUsages;
}


void StatementCache::insert(const DescriptionPtr& statement, std::vector<DescriptionPtr>& evicted)
{
	if (_maxPrepared == 0 || !statement) return;
	List::iterator counted = locate(_counted, statement->sql, statement->parseTypes);
	if (counted != _counted.end())
	{
		unindex(counted);
		_counted.erase(counted);
	}
	_prepared.push_front(Entry{statement->sql, statement->parseTypes, _minUsages, statement});
	_index.emplace(statement->sql, _prepared.begin());
	while (_prepared.size() > _maxPrepared)
	{
		List::iterator last = std::prev(_prepared.end());
		evicted.push_back(last->statement);
		unindex(last);
		_prepared.erase(last);
	}
}


void StatementCache::erase(const DescriptionPtr& statement)
{
	if (!statement) return;
	for (List::iterator it = _prepared.begin(); it != _prepared.end(); ++it)
	{
		if (it->statement == statement)
		{
			unindex(it);
			_prepared.erase(it);
			return;
		}
	}
}


void StatementCache::reset(std::size_t maxPrepared, std::size_t minUsages)
{
	clear();
	_maxPrepared = maxPrepared;
	_minUsages = std::max<std::size_t>(minUsages, 1);
	_maxCandidates = std::max<std::size_t>(maxPrepared * 4, 64);
}


void StatementCache::clear()
{
	_index.clear();
	_prepared.clear();
	_counted.clear();
}


std::size_t StatementCache::markStale()
{
	for (Entry& entry: _prepared) entry.statement->needsReprepare = true;
	return _prepared.size();
}


std::size_t StatementCache::size() const
{
	return _prepared.size();
}


std::size_t StatementCache::candidates() const
{
	return _counted.size();
}


std::vector<std::string> StatementCache::names() const
{
	std::vector<std::string> result;
	for (const Entry& entry: _prepared) result.push_back(entry.statement->name);
	return result;
}


std::size_t StatementCache::maxPrepared() const
{
	return _maxPrepared;
}


std::size_t StatementCache::minUsages() const
{
	return _minUsages;
}

} // namespace BlueTusk
