//
// StatementInvalidation.cpp
//
// Library: BlueTusk/Transport
//

#include "StatementInvalidation.h"

namespace BlueTusk {
namespace Detail {

bool hasInferredTypes(const PreparedStatement::Description& statement)
{
	if (statement.parseTypes.size() < statement.parameterTypes.size()) return true;
	for (Poco::UInt32 type: statement.parseTypes)
	{
		if (type == 0) return true;
	}
	return false;
}


Staleness staleness(const BlueTuskServerException& exc, const PreparedStatement::Description& statement)
{
	const std::string& state = exc.sqlState();
	if (state == "26000") return Staleness::Invalidated;
	if (state == "0A000" && exc.fields().message.find("cached plan must not change result type") != std::string::npos)
		return Staleness::Invalidated;
	// 42804 datatype_mismatch ("column \"c\" is of type integer but expression is of type character
	// varying"), 42P18 indeterminate_datatype: raised when the server plans the statement again against the
	// changed tables with the parameter types it inferred the first time.
	if ((state == "42804" || state == "42P18") && statement.cached && hasInferredTypes(statement)) return Staleness::TypesChanged;
	return Staleness::None;
}


BlueTuskServerException staleInTransaction(const BlueTuskServerException& exc, Staleness staleness)
{
	BlueTuskServerException::Fields fields = exc.fields();
	if (staleness == Staleness::Invalidated)
		fields.message += "; the statement was prepared before a schema change (DDL or DISCARD) and is prepared again on its "
			"next use, but inside a transaction block it cannot be retried: roll back and run the transaction again";
	else
		fields.message += "; if the table changed since BlueTusk's statement cache prepared this statement, its parameter types "
			"are those of the old table: the statement is prepared again on its next use, so roll back and run the transaction "
			"again (outside a transaction block BlueTusk retries it by itself)";
	return BlueTuskServerException(fields, exc.sessionUsable());
}

} } // namespace BlueTusk::Detail
