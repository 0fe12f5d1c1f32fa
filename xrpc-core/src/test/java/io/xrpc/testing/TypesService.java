package io.xrpc.testing;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/** A service whose methods exercise every kind of value a serializer must carry. */
public interface TypesService {
    int addInts(int a, int b);

    long addLongs(long a, Long b);

    double scale(double v, float f);

    boolean not(boolean b);

    short shortOf(short s);

    byte byteOf(byte b);

    char charOf(char c);

    Integer boxedOrNull(Integer v);

    String echo(String s);

    String join(String a, String b, String c);

    int[] reverse(int[] values);

    String[] upper(String[] values);

    byte[] bytes(byte[] data);

    List<String> list(List<String> values);

    Map<String, Integer> map(Map<String, Integer> values);

    Set<Long> set(Set<Long> values);

    Dtos.Person person(Dtos.Person p);

    List<Dtos.Person> people(int n);

    Dtos.Level flip(Dtos.Level level);

    BigDecimal add(BigDecimal a, BigDecimal b);

    LocalDate nextDay(LocalDate d);

    LocalDateTime plusHour(LocalDateTime t);

    ZonedDateTime zoned(ZonedDateTime t);

    Duration twice(Duration d);

    void nothing(String s);

    String nullString();

    String fail(String message);

    CompletableFuture<Dtos.Person> personAsync(long id);

    CompletableFuture<Void> voidAsync();

    CompletableFuture<String> failAsync(String message);

    default String localGreeting() {
        return "computed locally";
    }
}
