//
// PocoVersionAdapter.h
//
// Library: BlueTusk/Data
//
// The one place that knows which Poco::Data interfaces changed between the Poco versions BlueTusk is built
// against (1.11, Debian 12's, and current ones up to 1.14: doc/poco-data.md, "Poco versions"). Each macro
// names one changed interface; the code that adapts to it is beside the interface's use and tests only the
// macro.
//

#ifndef BlueTusk_Data_PocoVersionAdapter_INCLUDED
#define BlueTusk_Data_PocoVersionAdapter_INCLUDED

#include "Poco/Version.h"

// Poco 1.13: Poco::Data::Session::begin() turns the feature "autoCommit" off itself before it calls
// SessionImpl::begin(), and commit() / rollback() turn it on again afterwards. Before 1.13 begin() went to
// the connector directly. SessionImpl::setAutoCommit() then only owes the BEGIN (the next statement or
// begin() sends it) instead of beginning at once, so that begin() is not "already in a transaction"; and
// turning autoCommit on inside a transaction throws InvalidAccessException (1.11: commits it), the rule
// Poco's own connectors and Poco's Data test suite follow from 1.13 on.
#define BLUETUSK_POCO_BEGIN_TURNS_AUTOCOMMIT_OFF (POCO_VERSION >= 0x010D0000)

// Poco 1.13: Poco::Data::AbstractExtractor has extract() overloads for Poco::Nullable<T>, whose default
// throws NotImplementedException; a connector overrides them (NULL clears the Nullable).
#define BLUETUSK_POCO_NULLABLE_EXTRACTION (POCO_VERSION >= 0x010D0000)

#endif // BlueTusk_Data_PocoVersionAdapter_INCLUDED
