//
// QueryResult.cpp
//
// Library: BlueTusk/Transport
//

#include "BlueTusk/QueryResult.h"
#include <cctype>

namespace BlueTusk {

Poco::UInt64 QueryResult::rowsAffected() const
{
	std::size_t end = commandTag.size();
	std::size_t begin = end;
	while (begin > 0 && std::isdigit(static_cast<unsigned char>(commandTag[begin - 1]))) --begin;
	if (begin == end || (begin > 0 && commandTag[begin - 1] != ' ')) return 0;
	return std::stoull(commandTag.substr(begin));
}


int QueryResult::columnIndex(const std::string& name) const
{
	for (std::size_t i = 0; i < columns.size(); ++i)
		if (columns[i].name == name) return static_cast<int>(i);
	return -1;
}


RowView QueryResult::row(std::size_t index) const
{
	if (index >= rows.size())
		throw BlueTuskUsageException("row " + std::to_string(index) + " does not exist; the result has " + std::to_string(rows.size()) + " rows");
	return RowView(columns, rows[index]);
}


RowView::RowView(const std::vector<ColumnDescription>& columns, const Row& row): _columns(&columns), _row(&row), _packed(nullptr)
{
}


std::size_t RowView::size() const
{
	return _columns->size();
}


bool RowView::isNull(std::size_t index) const
{
	return checkedField(index).isNull();
}


bool RowView::isNull(const std::string& name) const
{
	return isNull(columnIndex(name));
}


bool RowView::isInfinite(std::size_t index) const
{
	const FieldRef field = checkedField(index);
	if (field.isNull()) return false;
	return ValueCodec::isInfinite(FieldView{(*_columns)[index].typeOid, (*_columns)[index].formatCode, field.data(), field.size()});
}


const std::string& RowView::columnName(std::size_t index) const
{
	checkedField(index);
	return (*_columns)[index].name;
}


Poco::UInt32 RowView::typeOid(std::size_t index) const
{
	checkedField(index);
	return (*_columns)[index].typeOid;
}


std::size_t RowView::columnIndex(const std::string& name) const
{
	for (std::size_t i = 0; i < _columns->size(); ++i)
		if ((*_columns)[i].name == name) return i;
	std::string names;
	for (const ColumnDescription& column: *_columns) names += (names.empty() ? "" : ", ") + column.name;
	throw BlueTuskUsageException("no column is called \"" + name + "\"; the columns are: " + (names.empty() ? std::string("(none)") : names));
}


FieldRef RowView::raw(std::size_t index) const
{
	return checkedField(index);
}


void RowView::rangeError(std::size_t index) const
{
	throw BlueTuskUsageException("column index " + std::to_string(index) + " is out of range; the row has " +
		std::to_string(_columns->size()) + " columns (indexes start at 0)");
}


std::string RowView::describeColumn(std::size_t index) const
{
	return "column " + std::to_string(index + 1) + " \"" + (*_columns)[index].name + "\" (" + TypeOid::name((*_columns)[index].typeOid) + ")";
}


void RowView::nullError(std::size_t index, const char* cppType) const
{
	throw BlueTuskTypeException(describeColumn(index) + " is NULL and cannot be read as " + cppType +
		"; read it as std::optional or test isNull() first");
}


void RowView::rethrowNamed(std::size_t index, const BlueTuskTypeException& exc) const
{
	throw BlueTuskTypeException(describeColumn(index) + ": " + exc.message());
}

} // namespace BlueTusk
