//
// ConnectStream.cpp
//
// bluetusk-connect.
//

#include "ConnectStream.h"
#include "TextSafety.h"
#include "Poco/JSON/Array.h"
#include "Poco/Dynamic/Var.h"
#include <algorithm>
#include <iomanip>
#include <optional>
#include <sstream>

namespace BlueTusk {
namespace Samples {

namespace {

std::string jsonArray(const Poco::JSON::Array& array)
{
	std::ostringstream text;
	array.stringify(text);
	return validUtf8(text.str());   // Poco copies invalid UTF-8 bytes (see toLine())
}

} // namespace


ResultStream::ResultStream(bool json, std::ostream& out):
	_json(json),
	_out(out)
{
}


void ResultStream::begin(const std::vector<std::string>& columnNames)
{
	if (_json)
	{
		Poco::JSON::Array names;
		for (const auto& name: columnNames) names.add(name);
		_out << ",\"columns\":" << jsonArray(names) << ",\"rows\":[";
		return;
	}
	// The server's text is shown escaped: no ESC, BEL or CR reaches the terminal (doc/reliability.md).
	for (const auto& name: columnNames) _header.push_back(terminalSafe(name));
	for (const auto& name: _header) _widths.push_back(name.size());
}


void ResultStream::row(const std::vector<FieldValue>& fields)
{
	if (_json)
	{
		Poco::JSON::Array values;
		for (const auto& field: fields)
		{
			if (field) values.add(*field);
			else values.add(Poco::Dynamic::Var());
		}
		_out << (_rows ? "," : "") << jsonArray(values);
		++_rows;
		return;
	}
	std::vector<std::string> cells;
	for (std::size_t i = 0; i < _header.size(); ++i) cells.push_back(i < fields.size() && fields[i] ? terminalSafe(*fields[i]) : std::string("NULL"));
	++_rows;
	if (_widthsFixed)
	{
		printCells(cells);
		return;
	}
	for (std::size_t i = 0; i < cells.size(); ++i) _widths[i] = std::max(_widths[i], cells[i].size());
	_held.push_back(std::move(cells));
	if (_held.size() == HELD_ROWS) printHeldRows();
}


void ResultStream::row(const RowView& row)
{
	std::vector<FieldValue> fields;
	fields.reserve(row.size());
	for (std::size_t i = 0; i < row.size(); ++i) fields.push_back(row.get<std::optional<std::string>>(i));
	this->row(fields);
}


void ResultStream::finish(const std::string& commandTag)
{
	if (_json)
	{
		Poco::JSON::Array tag;
		tag.add(commandTag);
		const std::string quoted = jsonArray(tag);   // ["..."]: the tag escaped as a JSON string
		_out << "],\"command_tag\":" << quoted.substr(1, quoted.size() - 2) << "}" << std::endl;
		return;
	}
	if (!_widthsFixed) printHeldRows();
	_out << "    (" << _rows << (_rows == 1 ? " row)\n" : " rows)\n");
}


std::size_t ResultStream::rows() const
{
	return _rows;
}


void ResultStream::printHeldRows()
{
	printCells(_header);
	std::vector<std::string> rule;
	for (auto width: _widths) rule.push_back(std::string(width, '-'));
	printCells(rule);
	for (const auto& cells: _held) printCells(cells);
	_held.clear();
	_held.shrink_to_fit();
	_widthsFixed = true;
}


void ResultStream::printCells(const std::vector<std::string>& cells)
{
	_out << "    ";
	for (std::size_t i = 0; i < cells.size(); ++i)
	{
		if (i) _out << " | ";
		_out << std::left << std::setw(static_cast<int>(_widths[i])) << cells[i];
	}
	_out << std::right << "\n";
}

} } // namespace BlueTusk::Samples
