package io.xrpc.testing;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** Value types the test services exchange. */
public final class Dtos {
    private Dtos() {}

    public enum Level {
        LOW,
        HIGH
    }

    public static class Address {
        public String city;
        public String street;

        public Address() {}

        public Address(String city, String street) {
            this.city = city;
            this.street = street;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Address a && Objects.equals(city, a.city) && Objects.equals(street, a.street);
        }

        @Override
        public int hashCode() {
            return Objects.hash(city, street);
        }

        @Override
        public String toString() {
            return city + "/" + street;
        }
    }

    public static class Person {
        public long id;
        public String name;
        public Level level;
        public BigDecimal balance;
        public LocalDate birthday;
        public LocalDateTime updated;
        public Instant created;
        public Address home;
        public List<Address> others = new ArrayList<>();
        public Map<String, Integer> scores = new HashMap<>();
        public int[] lucky;

        @Override
        public boolean equals(Object o) {
            return o instanceof Person p
                    && id == p.id
                    && Objects.equals(name, p.name)
                    && level == p.level
                    && Objects.equals(balance, p.balance)
                    && Objects.equals(birthday, p.birthday)
                    && Objects.equals(updated, p.updated)
                    && Objects.equals(created, p.created)
                    && Objects.equals(home, p.home)
                    && Objects.equals(others, p.others)
                    && Objects.equals(scores, p.scores)
                    && Arrays.equals(lucky, p.lucky);
        }

        @Override
        public int hashCode() {
            return Objects.hash(id, name);
        }

        @Override
        public String toString() {
            return "Person[" + id + "," + name + "," + level + "," + balance + "," + birthday + "," + updated + ","
                    + created + "," + home + "," + others + "," + scores + "]";
        }
    }

    public static Person samplePerson(long id) {
        Person p = new Person();
        p.id = id;
        p.name = "Zoë 张伟 🚀 #" + id;
        p.level = Level.HIGH;
        p.balance = new BigDecimal("12345.6789");
        p.birthday = LocalDate.of(1990, 2, 28);
        p.updated = LocalDateTime.of(2026, 11, 22, 10, 45, 1, 123_000_000);
        p.created = Instant.ofEpochSecond(1_700_000_000L, 42);
        p.home = new Address("Lisbon", "Rua Augusta 1");
        p.others.add(new Address("Porto", "Rua de Santa Catarina"));
        p.others.add(new Address("Faro", null));
        p.scores.put("math", 97);
        p.scores.put("art", 88);
        p.lucky = new int[] {3, 7, 42};
        return p;
    }
}
