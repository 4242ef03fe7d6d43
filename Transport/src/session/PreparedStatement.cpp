//
// PreparedStatement.cpp
//
// Library: BlueTusk/Transport
//

#include "BlueTusk/PreparedStatement.h"
#include "BlueTusk/BlueTuskException.h"

namespace BlueTusk {

PreparedStatement::PreparedStatement()
{
}


PreparedStatement::PreparedStatement(std::shared_ptr<Description> description): _description(std::move(description))
{
}


bool PreparedStatement::isValid() const
{
	return _description && !_description->name.empty();
}


const PreparedStatement::Description& PreparedStatement::checked() const
{
	if (!_description) throw BlueTuskUsageException("the PreparedStatement handle is empty; obtain one from Session::prepare()");
	return *_description;
}


const std::string& PreparedStatement::name() const
{
	return checked().name;
}


const std::string& PreparedStatement::sql() const
{
	return checked().sql;
}


const std::vector<Poco::UInt32>& PreparedStatement::parameterTypes() const
{
	return checked().parameterTypes;
}


const std::vector<ColumnDescription>& PreparedStatement::columns() const
{
	return checked().columns;
}


Poco::UInt64 PreparedStatement::sessionId() const
{
	return checked().sessionId;
}


const std::shared_ptr<PreparedStatement::Description>& PreparedStatement::description() const
{
	return _description;
}

} // namespace BlueTusk
