package io.xrpc.serialize;

/**
 * The form in which an exception a service method declares travels from the provider to the
 * caller ({@link RemoteExceptions}): a record of strings and bytes that every serializer carries,
 * a custom one included, whatever it does with {@code Object}. Every serializer in use is asked
 * about it at start-up ({@link TypeCheck}) for each interface whose methods declare exceptions.
 *
 * <p>The exception's own fields are not values of this record, whose component types could not
 * say what they hold: they travel in {@code fieldValues} as the bytes the same serializer writes
 * for a call's arguments ({@link Serializer#writeArguments}), and the caller reads them with the
 * declared types of the fields its own copy of the class has ({@link Serializer#readArguments}),
 * as it reads any argument. A field is carried by exactly the serializers that can carry it as an
 * argument, which the start-up check asks about too.
 *
 * @param className   the exception's class
 * @param message     its message, cut to 2,048 characters
 * @param fieldNames  {@code declaringClass.field} of each carried field, or {@code null}
 * @param fieldValues the carried fields' values, in {@code fieldNames}' order, as arguments; or {@code null}
 * @param stack       four strings a frame: class, method, file (or {@code null}), line
 * @param cause       its cause in the same form, or {@code null}
 */
public record ExceptionValue(
        String className,
        String message,
        String[] fieldNames,
        byte[] fieldValues,
        String[] stack,
        ExceptionValue cause) {}
