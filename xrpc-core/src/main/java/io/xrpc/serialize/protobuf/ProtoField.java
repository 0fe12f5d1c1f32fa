package io.xrpc.serialize.protobuf;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Pins the protobuf field number of a record component or field, where declaration order would
 * give another: to match a {@code .proto} written elsewhere, or to leave a removed field's number
 * unused. A field without it takes the number after the one before it (the first: 1), so
 * {@code record A(@ProtoField(3) String b, String c)} numbers {@code b} 3 and {@code c} 4. Numbers
 * are 1 to 536,870,911 and unique in their message; the derived contract and the
 * {@code protobuf} serializer both follow them.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.RECORD_COMPONENT, ElementType.FIELD})
public @interface ProtoField {
    /** The field's number. */
    int value();
}
