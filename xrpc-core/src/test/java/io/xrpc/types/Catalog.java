package io.xrpc.types;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.Month;
import java.time.MonthDay;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.Period;
import java.time.Year;
import java.time.YearMonth;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/** The kinds of value a new user's first service exchanges: records, JDK value types, enums, subtypes. */
public final class Catalog {
    private Catalog() {}

    public enum Category {
        TOOLS,
        FOOD,
        TOYS
    }

    /** An enum whose constants have bodies: each constant is a subclass of its own. */
    public enum Op {
        PLUS {
            @Override
            public int apply(int a, int b) {
                return a + b;
            }
        },
        TIMES {
            @Override
            public int apply(int a, int b) {
                return a * b;
            }
        };

        public abstract int apply(int a, int b);
    }

    /** The DTO: a record of a UUID, text, money, an enum and times. */
    public record Item(UUID id, String name, BigDecimal price, Category category, Instant added, LocalDate due) {}

    public record Page<T>(List<T> content, int number, long total) {}

    public record Order(Item first, List<Item> items, Map<String, Item> byName, Item[] extra) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Order x
                    && Objects.equals(first, x.first)
                    && Objects.equals(items, x.items)
                    && Objects.equals(byName, x.byName)
                    && Arrays.equals(extra, x.extra);
        }

        @Override
        public int hashCode() {
            return Objects.hash(first, items);
        }

        @Override
        public String toString() {
            return "Order[" + first + ", " + items + ", " + byName + ", " + Arrays.toString(extra) + "]";
        }
    }

    /** A compact constructor that validates and normalizes. */
    public record Range(int low, int high, String label) {
        public Range {
            if (low > high) {
                throw new IllegalArgumentException("low " + low + " > high " + high);
            }
            label = label == null ? null : label.strip();
        }
    }

    public record Empty() {}

    public record Times(
            LocalDate date,
            LocalTime time,
            LocalDateTime dateTime,
            Instant instant,
            Duration duration,
            Period period,
            ZonedDateTime zoned,
            OffsetDateTime offsetDateTime,
            OffsetTime offsetTime,
            Year year,
            YearMonth yearMonth,
            MonthDay monthDay,
            ZoneOffset offset,
            ZoneId zone,
            DayOfWeek dayOfWeek,
            Month month) {}

    public record Numbers(
            BigDecimal decimal,
            BigInteger integer,
            char c,
            short s,
            byte b,
            float f,
            double d,
            long l,
            boolean flag,
            Character boxedChar,
            Short boxedShort,
            Byte boxedByte) {}

    public record Enums(
            Category category,
            Op op,
            EnumMap<Category, BigDecimal> prices,
            EnumSet<Category> tags,
            Map<Category, Integer> counts) {}

    public record Immutables(
            List<String> list, Set<Integer> set, Map<String, Long> map, List<Item> emptyList, List<String> one) {}

    public record Optionals(Optional<String> name, Optional<Item> item) {}

    public sealed interface Shape permits Circle, Square {}

    public record Circle(double radius) implements Shape {}

    public record Square(double side) implements Shape {}

    public abstract static class Animal {
        public String name;

        @Override
        public boolean equals(Object o) {
            return o != null && o.getClass() == getClass() && Objects.equals(name, ((Animal) o).name);
        }

        @Override
        public int hashCode() {
            return Objects.hashCode(name);
        }
    }

    public static class Dog extends Animal {
        public int barks;

        public Dog() {}

        public Dog(String name, int barks) {
            this.name = name;
            this.barks = barks;
        }

        @Override
        public boolean equals(Object o) {
            return super.equals(o) && barks == ((Dog) o).barks;
        }

        @Override
        public String toString() {
            return "Dog[" + name + "," + barks + "]";
        }
    }

    /** Fields declared with a supertype, holding subtypes. */
    public record Holder(Object anything, Shape shape, List<Shape> shapes, Animal animal) {}

    public record Blob(String name, byte[] data) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Blob b && Objects.equals(name, b.name) && Arrays.equals(data, b.data);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(data);
        }

        @Override
        public String toString() {
            return "Blob[" + name + ", " + (data == null ? null : data.length + " bytes") + "]";
        }
    }

    /** A record no service method names: it can only travel in an Object field, allowed by name. */
    public record Note(String text, Category category) {}

    /** The same item held twice. */
    public record Pair(Item left, Item right) {}

    /** A mutable node that can point back at itself. */
    public static class Node {
        public String name;
        public Node next;

        @Override
        public String toString() {
            return "Node[" + name + " -> " + (next == null ? null : next == this ? "itself" : next.name) + "]";
        }
    }
}
