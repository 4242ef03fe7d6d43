//
// Foundation.h
//
// Library: BlueTusk/Foundation
//
// Basic definitions for the BlueTusk libraries: export macros and the version.
//

#ifndef BlueTusk_Foundation_INCLUDED
#define BlueTusk_Foundation_INCLUDED

#include "Poco/Foundation.h"

#if defined(__GNUC__)
#define BlueTusk_API_EXPORT __attribute__((visibility("default")))
#else
#define BlueTusk_API_EXPORT
#endif

#define BlueTusk_Foundation_API BlueTusk_API_EXPORT
#define BlueTusk_Transport_API BlueTusk_API_EXPORT
#define BlueTusk_Pooling_API BlueTusk_API_EXPORT
#define BlueTusk_Routing_API BlueTusk_API_EXPORT
#define BlueTusk_Data_API BlueTusk_API_EXPORT

#define BLUETUSK_VERSION_STRING "0.1.0"

#endif // BlueTusk_Foundation_INCLUDED
